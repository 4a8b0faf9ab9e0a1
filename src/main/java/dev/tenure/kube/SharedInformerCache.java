package dev.tenure.kube;

import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * One informer shared by every user of a kind ({@link NodeCache}, {@link BudgetCache}): one LIST and one WATCH however
 * many jobs react to it, one cached copy of each object. Reference counted like client-go's shared informer factory:
 * the first {@link #open} starts the informer (and returns once it has synced, {@link InformerStart#run}), each {@link
 * Subscription#close()} removes its handler, and the last one closes the watch. A fabric8 informer cannot run again
 * once closed, so a later {@code open} (the next leadership term) starts a new one.
 *
 * @param <T> the kind watched
 */
public class SharedInformerCache<T> {

    private final Supplier<SharedIndexInformer<T>> make;
    private final String what;
    private SharedIndexInformer<T> informer;
    private int users;

    /**
     * @param make a runnable informer, not yet started (its store may trim what it caches)
     * @param what the cache's name in the error {@link InformerStart#run} throws, e.g. "the Node cache"
     */
    protected SharedInformerCache(Supplier<SharedIndexInformer<T>> make, String what) {
        this.make = Objects.requireNonNull(make, "make");
        this.what = Objects.requireNonNull(what, "what");
    }

    /** One user's handle: the shared informer, and {@link #close()} to stop receiving its events. */
    public final class Subscription implements AutoCloseable {
        private final SharedIndexInformer<T> shared;
        private final ResourceEventHandler<T> handler;
        private boolean closed;

        private Subscription(SharedIndexInformer<T> shared, ResourceEventHandler<T> handler) {
            this.shared = shared;
            this.handler = handler;
        }

        /** The shared informer: its store is the cache; do not close it, close the subscription. */
        public SharedIndexInformer<T> informer() {
            return shared;
        }

        @Override
        public void close() {
            synchronized (SharedInformerCache.this) {
                if (closed) {
                    return;
                }
                closed = true;
                shared.removeEventHandler(handler);
                if (--users == 0 && informer == shared) {
                    informer.close();
                    informer = null;
                }
            }
        }
    }

    /**
     * Adds {@code handler} to the shared informer, starting it first when nobody uses it yet. A handler added to a
     * running informer is told of every cached object as an add, so a late user misses nothing.
     *
     * @throws RuntimeException when the informer cannot start (no list or watch of the kind, API server down); nothing
     *     is left running then
     */
    public synchronized Subscription open(ResourceEventHandler<T> handler) {
        Objects.requireNonNull(handler, "handler");
        if (informer == null) {
            informer = InformerStart.run(make, what);
        }
        informer.addEventHandler(handler);
        users++;
        return new Subscription(informer, handler);
    }

    /** The running informer, for the liveness probe and tests; empty when no one uses the cache. */
    public synchronized Optional<SharedIndexInformer<T>> informer() {
        return Optional.ofNullable(informer);
    }
}
