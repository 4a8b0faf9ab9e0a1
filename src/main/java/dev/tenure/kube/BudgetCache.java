package dev.tenure.kube;

import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * The operator's one PodDisruptionBudget watch (all namespaces), shared by whatever reacts to budgets: the wake-up of
 * a drain a budget holds (issue 51). One LIST and one WATCH however many users; each budget cached trimmed ({@link
 * TrimmedBudgetStore}) to the numbers the eviction API judges by. Reference counted: see {@link
 * SharedInformerCache}.
 */
public final class BudgetCache extends SharedInformerCache<PodDisruptionBudget> {

    public BudgetCache(KubernetesClient client) {
        super(started(Objects.requireNonNull(client, "client")), "the PodDisruptionBudget cache");
    }

    /** A runnable informer of every namespace's budgets, cached trimmed. */
    private static Supplier<SharedIndexInformer<PodDisruptionBudget>> started(KubernetesClient client) {
        return () -> client.policy()
                .v1()
                .podDisruptionBudget()
                .inAnyNamespace()
                .runnableInformer(0)
                .itemStore(new TrimmedBudgetStore());
    }
}
