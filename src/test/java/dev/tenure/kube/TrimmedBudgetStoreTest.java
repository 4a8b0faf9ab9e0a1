package dev.tenure.kube;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.maintenance.drain.BudgetRelease;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntryBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TrimmedBudgetStoreTest {

    @Test
    void aCachedBudgetKeepsWhatTheEvictionApiJudgesByAndDropsTheRest() {
        TrimmedBudgetStore store = new TrimmedBudgetStore();
        PodDisruptionBudget full = new PodDisruptionBudgetBuilder()
                .withNewMetadata()
                .withNamespace("shop")
                .withName("web")
                .withResourceVersion("42")
                .withGeneration(3L)
                .withLabels(Map.of("team", "shop"))
                .withManagedFields(new ManagedFieldsEntryBuilder()
                        .withManager("kube-controller-manager")
                        .withOperation("Update")
                        .build())
                .endMetadata()
                .withNewSpec()
                .withMaxUnavailable(new IntOrString(1))
                .withNewSelector()
                .withMatchLabels(Map.of("app", "web"))
                .endSelector()
                .endSpec()
                .withNewStatus()
                .withObservedGeneration(3L)
                .withDisruptionsAllowed(1)
                .withCurrentHealthy(10)
                .withDesiredHealthy(9)
                .withExpectedPods(10)
                .withDisruptedPods(Map.of("web-1", "2026-11-29T10:00:00Z"))
                .endStatus()
                .build();
        store.put(store.getKey(full), full);

        PodDisruptionBudget cached = store.get("shop/web");
        assertThat(cached.getMetadata().getNamespace()).isEqualTo("shop");
        assertThat(cached.getMetadata().getName()).isEqualTo("web");
        assertThat(cached.getMetadata().getResourceVersion()).isEqualTo("42");
        assertThat(cached.getMetadata().getGeneration()).isEqualTo(3L);
        assertThat(cached.getStatus().getObservedGeneration()).isEqualTo(3L);
        assertThat(cached.getStatus().getDisruptionsAllowed()).isEqualTo(1);
        assertThat(cached.getStatus().getCurrentHealthy()).isEqualTo(10);
        assertThat(BudgetRelease.admits(cached)).isEqualTo(1);
        assertThat(cached.getSpec()).isNull();
        assertThat(cached.getMetadata().getManagedFields()).isNullOrEmpty();
        assertThat(cached.getMetadata().getLabels()).isNullOrEmpty();
        assertThat(cached.getStatus().getDisruptedPods()).isNullOrEmpty();
    }
}
