package dev.tenure.election;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * A {@link LeaseStore} in memory with API-server semantics (resourceVersion conflicts, 404,
 * watch) and fault injection: an {@link Interceptor} sees every call before and after it is
 * applied and may throw (e.g. 409/500, or a lost response after the write happened) or let
 * time pass (slow responses). Counts calls so tests can assert "one write, no read".
 */
public final class InMemoryLeaseStore implements LeaseStore {

    public enum Op {
        GET,
        CREATE,
        UPDATE
    }

    /** Sees calls; may throw a {@link LeaseStoreException} or advance a test clock. */
    public interface Interceptor {
        default void before(Op op, LeaseKey key) {}

        default void after(Op op, LeaseKey key) {}
    }

    private final Map<LeaseKey, LeaseRecord> leases = new ConcurrentHashMap<>();
    private final Map<LeaseKey, List<Consumer<Optional<LeaseRecord>>>> watchers = new ConcurrentHashMap<>();
    private final AtomicLong version = new AtomicLong();
    private final Map<Op, AtomicInteger> calls = new ConcurrentHashMap<>();
    private volatile Interceptor interceptor = new Interceptor() {};

    public void intercept(Interceptor i) {
        this.interceptor = i;
    }

    public int calls(Op op) {
        return calls.computeIfAbsent(op, o -> new AtomicInteger()).get();
    }

    public void resetCounts() {
        calls.clear();
    }

    /** Makes the next call of {@code op} fail with {@code error} before it is applied. */
    public void failNext(Op op, LeaseStoreException error) {
        Interceptor previous = interceptor;
        boolean[] used = {false};
        intercept(new Interceptor() {
            @Override
            public void before(Op o, LeaseKey key) {
                if (o == op && !used[0]) {
                    used[0] = true;
                    throw error;
                }
                previous.before(o, key);
            }

            @Override
            public void after(Op o, LeaseKey key) {
                previous.after(o, key);
            }
        });
    }

    @Override
    public LeaseRecord get(LeaseKey key) {
        count(Op.GET);
        interceptor.before(Op.GET, key);
        LeaseRecord r;
        synchronized (this) {
            r = leases.get(key);
        }
        interceptor.after(Op.GET, key);
        if (r == null) {
            throw new LeaseNotFound(key, null);
        }
        return r;
    }

    @Override
    public LeaseRecord create(LeaseKey key, LeaseRecord record) {
        count(Op.CREATE);
        interceptor.before(Op.CREATE, key);
        LeaseRecord stored;
        synchronized (this) {
            if (leases.containsKey(key)) {
                throw new LeaseConflict(key, true, null);
            }
            stored = record.withResourceVersion(Long.toString(version.incrementAndGet()));
            leases.put(key, stored);
            notifyWatchers(key, Optional.of(stored));
        }
        interceptor.after(Op.CREATE, key);
        return stored;
    }

    @Override
    public LeaseRecord update(LeaseKey key, LeaseRecord record) {
        count(Op.UPDATE);
        interceptor.before(Op.UPDATE, key);
        LeaseRecord stored;
        synchronized (this) {
            LeaseRecord current = leases.get(key);
            if (current == null) {
                throw new LeaseNotFound(key, null);
            }
            if (!current.resourceVersion().equals(record.resourceVersion())) {
                throw new LeaseConflict(key, false, null);
            }
            stored = record.withResourceVersion(Long.toString(version.incrementAndGet()))
                    .withDeletionRequested(current.deletionRequested());
            if (stored.deletionRequested() && !stored.hasHolder()) {
                // released in deletion: the holder's finalizer goes with the release, and the deletion finishes
                leases.remove(key);
                notifyWatchers(key, Optional.empty());
            } else {
                leases.put(key, stored);
                notifyWatchers(key, Optional.of(stored));
            }
        }
        interceptor.after(Op.UPDATE, key);
        return stored;
    }

    /**
     * Test backdoor: a delete of a lease whose holder keeps a finalizer on it (the operator's own lease): a held lease
     * stays, marked for deletion, until a write releases it; a free one goes at once.
     */
    public synchronized void requestDeletion(LeaseKey key) {
        requestDeletion(key, true);
    }

    /** {@link #requestDeletion(LeaseKey)}, its watch event lost when {@code watched} is false (a watch down). */
    public synchronized void requestDeletion(LeaseKey key, boolean watched) {
        LeaseRecord current = leases.get(key);
        if (current == null) {
            return;
        }
        if (!current.hasHolder()) {
            delete(key);
            return;
        }
        LeaseRecord marked =
                current.withDeletionRequested(true).withResourceVersion(Long.toString(version.incrementAndGet()));
        leases.put(key, marked);
        if (watched) {
            notifyWatchers(key, Optional.of(marked));
        }
    }

    /** Test backdoor: write without conditions (a foreign writer, e.g. a CLE controller). */
    public LeaseRecord put(LeaseKey key, LeaseRecord record) {
        LeaseRecord stored;
        synchronized (this) {
            stored = record.withResourceVersion(Long.toString(version.incrementAndGet()));
            leases.put(key, stored);
            notifyWatchers(key, Optional.of(stored));
        }
        return stored;
    }

    /** Test backdoor: a foreign write whose watch event is lost (the watch was reconnecting). */
    public LeaseRecord putUnwatched(LeaseKey key, LeaseRecord record) {
        synchronized (this) {
            LeaseRecord stored = record.withResourceVersion(Long.toString(version.incrementAndGet()));
            leases.put(key, stored);
            return stored;
        }
    }

    public Optional<LeaseRecord> peek(LeaseKey key) {
        return Optional.ofNullable(leases.get(key));
    }

    public synchronized void delete(LeaseKey key) {
        leases.remove(key);
        notifyWatchers(key, Optional.empty());
    }

    @Override
    public LeaseWatch watch(LeaseKey key, Consumer<Optional<LeaseRecord>> listener) {
        List<Consumer<Optional<LeaseRecord>>> list = watchers.computeIfAbsent(key, k -> new CopyOnWriteArrayList<>());
        list.add(listener);
        return () -> list.remove(listener);
    }

    /** Delivers an event without changing the store: a late (stale) watch event, as real watches can. */
    public void deliverStale(LeaseKey key, LeaseRecord stale) {
        notifyWatchers(key, Optional.of(stale));
    }

    /**
     * Called under this store's lock, so every watcher sees the writes in the order they were made, as an API
     * server's watch delivers events in resourceVersion order (listeners must not block: they only schedule).
     */
    private void notifyWatchers(LeaseKey key, Optional<LeaseRecord> rec) {
        for (Consumer<Optional<LeaseRecord>> w : new ArrayList<>(watchers.getOrDefault(key, List.of()))) {
            w.accept(rec);
        }
    }

    private void count(Op op) {
        calls.computeIfAbsent(op, o -> new AtomicInteger()).incrementAndGet();
    }
}
