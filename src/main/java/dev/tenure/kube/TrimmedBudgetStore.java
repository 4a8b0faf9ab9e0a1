package dev.tenure.kube;

import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.client.informers.cache.ReducedStateItemStore;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;

/**
 * The item store of the operator's PodDisruptionBudget informer ({@link BudgetCache}): fabric8's {@link
 * ReducedStateItemStore} keeping what the eviction API judges a budget by (pkg/registry/core/pod/storage/eviction.go:
 * {@code metadata.generation} against {@code status.observedGeneration}, {@code status.disruptionsAllowed}) and
 * {@code status.currentHealthy}, besides the name, namespace and resourceVersion the store keeps itself. The spec,
 * the conditions, {@code disruptedPods} and the managed fields are dropped before caching.
 */
public final class TrimmedBudgetStore extends ReducedStateItemStore<PodDisruptionBudget> {

    /** The fields kept, as dotted paths. */
    static final String[] KEPT = {
        "metadata.generation", "status.disruptionsAllowed", "status.currentHealthy", "status.observedGeneration"
    };

    public TrimmedBudgetStore() {
        super(NAME_KEY_STATE, PodDisruptionBudget.class, new KubernetesSerialization(), KEPT);
    }
}
