package dev.tenure;

import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.lang.ArchRule;
import dev.tenure.operator.ManifestAssembly;
import dev.tenure.operator.Release;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The house plan: the election core (and {@code kube}, the operator's shared fabric8 helpers) at the bottom, the two jobs (coordination, maintenance) on it side by side, and
 * the operator (configuration, CDI wiring, probes, leadership, manifests) on top. A walk from a reconciler to a lease
 * write goes down the layers and never comes back, and no package needs another that needs it.
 */
class LayeringTest {

    private static final JavaClasses MAIN = MainClasses.all();

    static final ArchRule NO_CYCLES =
            slices().matching("dev.tenure.(**)").should().beFreeOfCycles();

    static final ArchRule LAYERS = layeredArchitecture()
            .consideringOnlyDependenciesInLayers()
            .layer("election")
            .definedBy("dev.tenure.election..")
            .layer("kube")
            .definedBy("dev.tenure.kube..")
            .layer("placement")
            .definedBy("dev.tenure.placement..")
            .layer("coordination")
            .definedBy("dev.tenure.coordination..")
            .layer("maintenance")
            .definedBy("dev.tenure.maintenance..")
            .layer("rollout")
            .definedBy("dev.tenure.rollout..")
            .layer("operator")
            .definedBy("dev.tenure.operator..")
            .whereLayer("operator")
            .mayNotBeAccessedByAnyLayer()
            .whereLayer("coordination")
            .mayOnlyBeAccessedByLayers("operator")
            .whereLayer("maintenance")
            .mayOnlyBeAccessedByLayers("rollout", "operator")
            // the pool rollout uses NodeMaintenance as its API, the way a MachineSet uses Machines (docs/rollout.md)
            .whereLayer("rollout")
            .mayOnlyBeAccessedByLayers("operator")
            // kube's fabric8 helpers carry the core's WorkFence (FencedWrites, KeyedWorkQueue): the core is the floor
            .whereLayer("election")
            .mayOnlyBeAccessedByLayers("kube", "coordination", "maintenance", "rollout", "operator")
            .whereLayer("kube")
            .mayOnlyBeAccessedByLayers("coordination", "maintenance", "rollout", "operator")
            // the pure placement forecast: a floor under admission, machine and drain (docs/development.md, the map)
            .whereLayer("placement")
            .mayOnlyBeAccessedByLayers("maintenance", "operator");

    @Test
    void noPackageDependsOnOneThatDependsOnIt() {
        NO_CYCLES.check(MAIN);
    }

    @Test
    void dependenciesGoDownTheLayers() {
        LAYERS.check(MAIN);
    }

    /** Manifest assembly, release and catalog code runs at build time (src/build/java), never in the operator. */
    @Test
    void buildTimeCodeIsCompiledOutsideTheOperatorClasses() {
        for (Class<?> c : List.of(ManifestAssembly.class, Release.class)) {
            assertThat(c.getProtectionDomain().getCodeSource().getLocation().getPath())
                    .as(c.getName())
                    .endsWith("/test-classes/");
        }
    }
}
