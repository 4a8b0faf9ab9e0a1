package dev.tenure.placement;

import static dev.tenure.placement.Fixtures.container;
import static dev.tenure.placement.Fixtures.pod;
import static dev.tenure.placement.Fixtures.with;
import static dev.tenure.placement.Fixtures.withPorts;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodAffinityTerm;
import io.fabric8.kubernetes.api.model.PodAffinityTermBuilder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A pod as a node of the forecast's view keeps it (issue 49 item 5: the view of 150,000 pods within the heap budget):
 * what the filters read is kept exactly, equal values are shared, the rest is gone.
 */
class PlacedPodTest {

    private static final PodAffinityTerm TERM = new PodAffinityTermBuilder()
            .withTopologyKey("kubernetes.io/hostname")
            .withLabelSelector(new LabelSelectorBuilder()
                    .withMatchLabels(Map.of("app", "a"))
                    .build())
            .build();

    @Test
    void keepsTheEffectiveRequestOfInitContainersSidecarsAndOverhead() {
        Pod p = with(
                pod("p").build(),
                b -> b.editSpec()
                        .withContainers(container("cpu", "2m", "memory", "4"))
                        .withInitContainers(
                                container("cpu", "5m"),
                                new ContainerBuilder(container("memory", "3"))
                                        .withRestartPolicy("Always")
                                        .build())
                        .withOverhead(Fixtures.quantities("cpu", "1m"))
                        .endSpec());

        PlacedPod placed = new PlacedPod.Shared().of(p);

        // the scheduler's rule (Resources.podRequests): max(containers + sidecars, each init step) + overhead
        assertThat(placed.requests()).isEqualTo(Resources.podRequests(p)).containsEntry("cpu", 6L);
    }

    @Test
    void keepsHostPortsAndRequiredAntiAffinityOnly() {
        Pod p = with(
                withPorts("p", "TCP/127.0.0.1/8080", "UDP//53"),
                b -> b.editMetadata()
                        .withLabels(Map.of("app", "a"))
                        .withDeletionTimestamp("2026-11-29T00:00:00Z")
                        .endMetadata()
                        .editSpec()
                        .withNewAffinity()
                        .withNewPodAntiAffinity()
                        .withRequiredDuringSchedulingIgnoredDuringExecution(TERM)
                        .endPodAntiAffinity()
                        .withNewPodAffinity()
                        .withRequiredDuringSchedulingIgnoredDuringExecution(TERM)
                        .endPodAffinity()
                        .endAffinity()
                        .endSpec());

        PlacedPod placed = new PlacedPod.Shared().of(p);

        assertThat(placed.namespace()).isEqualTo("ns");
        assertThat(placed.name()).isEqualTo("p");
        assertThat(placed.labels()).isEqualTo(Map.of("app", "a"));
        assertThat(placed.terminating()).isTrue();
        assertThat(placed.hostPorts()).isEqualTo(NodePorts.hostPorts(p)).hasSize(2);
        assertThat(placed.antiAffinity()).containsExactly(TERM);
    }

    @Test
    void podsOfOneTemplateShareTheirLabelsRequestsAndTerms() {
        PlacedPod.Shared shared = new PlacedPod.Shared();
        List<PlacedPod> pods = List.of("a-1", "a-2").stream()
                .map(name -> shared.of(with(
                        Fixtures.requesting(name, "cpu", "1m"),
                        b -> b.editMetadata()
                                .withLabels(Map.of("app", "a", "pod-template-hash", "7d9f8"))
                                .endMetadata()
                                .editSpec()
                                .withNewAffinity()
                                .withNewPodAntiAffinity()
                                .withRequiredDuringSchedulingIgnoredDuringExecution(TERM)
                                .endPodAntiAffinity()
                                .endAffinity()
                                .endSpec())))
                .toList();

        assertThat(pods.get(1).labels()).isSameAs(pods.get(0).labels());
        assertThat(pods.get(1).requests()).isSameAs(pods.get(0).requests());
        assertThat(pods.get(1).antiAffinity()).isSameAs(pods.get(0).antiAffinity());
        assertThat(pods.get(1).namespace()).isSameAs(pods.get(0).namespace());
    }
}
