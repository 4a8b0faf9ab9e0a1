package dev.tenure.kube;

import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.Objects;
import java.util.Optional;

/**
 * The operator's one PodDisruptionBudget watch (all namespaces), shared by whatever reacts to budgets: the wake-up of
 * a drain a budget holds (issue 51). One LIST and one WATCH however many users; each budget cached trimmed ({@link
 * TrimmedBudgetStore}) to the numbers the eviction API judges by. Reference counted as {@link NodeCache}: the first
 * {@link #open} starts the informer (and returns once it has synced), the last {@link Subscription#close()} closes
 * it, and a later {@code open} (the next leadership term) starts a new one.
 */
public final class BudgetCache {

    private final KubernetesClient client;
    private SharedIndexInformer<PodDisruptionBudget> informer;
    private int users;

    public BudgetCache(KubernetesClient client) {
        this.client = Objects.requireNonNull(client, "client");
    }

    /** One user's handle: {@link #close()} stops its events, and the watch with the last user. */
    public final class Subscription implements AutoCloseable {
        private final SharedIndexInformer<PodDisruptionBudget> budgets;
        private final ResourceEventHandler<PodDisruptionBudget> handler;
        private boolean closed;

        private Subscription(
                SharedIndexInformer<PodDisruptionBudget> budgets, ResourceEventHandler<PodDisruptionBudget> handler) {
            this.budgets = budgets;
            this.handler = handler;
        }

        @Override
        public void close() {
            synchronized (BudgetCache.this) {
                if (closed) {
                    return;
                }
                closed = true;
                budgets.removeEventHandler(handler);
                if (--users == 0 && informer == budgets) {
                    informer.close();
                    informer = null;
                }
            }
        }
    }

    /**
     * Adds {@code handler} to the shared informer, starting it first when nobody uses it yet; a handler added to a
     * running informer is told of every cached budget as an add.
     *
     * @throws RuntimeException when the informer cannot start (no list or watch of poddisruptionbudgets, API server
     *     down); nothing is left running then
     */
    public synchronized Subscription open(ResourceEventHandler<PodDisruptionBudget> handler) {
        Objects.requireNonNull(handler, "handler");
        if (informer == null) {
            informer = InformerStart.run(
                    () -> client.policy()
                            .v1()
                            .podDisruptionBudget()
                            .inAnyNamespace()
                            .runnableInformer(0)
                            .itemStore(new TrimmedBudgetStore()),
                    "the PodDisruptionBudget cache");
        }
        informer.addEventHandler(handler);
        users++;
        return new Subscription(informer, handler);
    }

    /** The running informer, for the liveness probe and tests; empty when no one uses the cache. */
    public synchronized Optional<SharedIndexInformer<PodDisruptionBudget>> informer() {
        return Optional.ofNullable(informer);
    }
}
