package dev.tenure.election;

import java.util.Optional;
import java.util.Random;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Wraps any {@link LeaseStore} (e.g. the fabric8 one against a real API server) and injects
 * seeded faults: 409 or 500 before the call, or a lost response (500) after a write was applied.
 */
public final class FaultyLeaseStore implements LeaseStore {
    private final LeaseStore delegate;
    private final Random random;
    private final double rate;

    public FaultyLeaseStore(LeaseStore delegate, long seed, double rate) {
        this.delegate = delegate;
        this.random = new Random(seed);
        this.rate = rate;
    }

    private <T> T call(LeaseKey key, boolean write, Supplier<T> op) {
        double p;
        synchronized (random) {
            p = random.nextDouble();
        }
        if (p < rate / 3 && write) {
            throw new LeaseConflict(key, false, null);
        }
        if (p < 2 * rate / 3) {
            throw new LeaseStoreFailure(key, 500, "injected", null);
        }
        T result = op.get();
        if (p < rate && write) {
            throw new LeaseStoreFailure(key, 500, "injected after apply (lost response)", null);
        }
        return result;
    }

    @Override
    public LeaseRecord get(LeaseKey key) {
        return call(key, false, () -> delegate.get(key));
    }

    @Override
    public LeaseRecord create(LeaseKey key, LeaseRecord record) {
        return call(key, true, () -> delegate.create(key, record));
    }

    @Override
    public LeaseRecord update(LeaseKey key, LeaseRecord record) {
        return call(key, true, () -> delegate.update(key, record));
    }

    @Override
    public LeaseWatch watch(LeaseKey key, Consumer<Optional<LeaseRecord>> listener) {
        return delegate.watch(key, listener);
    }
}
