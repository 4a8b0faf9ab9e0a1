package dev.tenure.election;

import java.util.Optional;
import java.util.function.Consumer;

/** One participant's view of a shared store that can be cut off (every call fails with 500), as in a network partition. */
final class PartitionedLeaseStore implements LeaseStore {
    private final LeaseStore delegate;
    volatile boolean partitioned;
    /** Watch events are dropped (a watch reconnecting), calls still work. */
    volatile boolean watchLost;

    PartitionedLeaseStore(LeaseStore delegate) {
        this.delegate = delegate;
    }

    private void check(LeaseKey key) {
        if (partitioned) {
            throw new LeaseStoreFailure(key, 0, "partitioned (injected)", null);
        }
    }

    @Override
    public LeaseRecord get(LeaseKey key) {
        check(key);
        return delegate.get(key);
    }

    @Override
    public LeaseRecord create(LeaseKey key, LeaseRecord record) {
        check(key);
        return delegate.create(key, record);
    }

    @Override
    public LeaseRecord update(LeaseKey key, LeaseRecord record) {
        check(key);
        return delegate.update(key, record);
    }

    @Override
    public LeaseWatch watch(LeaseKey key, Consumer<Optional<LeaseRecord>> listener) {
        return delegate.watch(key, rec -> {
            if (!partitioned && !watchLost) {
                listener.accept(rec);
            }
        });
    }
}
