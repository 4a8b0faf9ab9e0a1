package dev.tenure.election;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/** {@link LeaseCandidateStore} in memory, with watch and write counting, for tests. */
public final class InMemoryLeaseCandidateStore implements LeaseCandidateStore {
    private final Map<LeaseKey, CandidateRecord> items = new ConcurrentHashMap<>();
    private final Map<LeaseKey, List<Consumer<Optional<CandidateRecord>>>> watchers = new ConcurrentHashMap<>();
    private final AtomicLong version = new AtomicLong();
    public final AtomicInteger writes = new AtomicInteger();

    @Override
    public synchronized CandidateRecord get(LeaseKey key) {
        CandidateRecord r = items.get(key);
        if (r == null) {
            throw new LeaseNotFound(key, null);
        }
        return r;
    }

    @Override
    public CandidateRecord create(LeaseKey key, CandidateRecord record) {
        CandidateRecord stored;
        synchronized (this) {
            if (items.containsKey(key)) {
                throw new LeaseConflict(key, true, null);
            }
            stored = store(key, record);
        }
        notify(key, stored);
        return stored;
    }

    @Override
    public CandidateRecord update(LeaseKey key, CandidateRecord record) {
        CandidateRecord stored;
        synchronized (this) {
            CandidateRecord current = items.get(key);
            if (current == null) {
                throw new LeaseNotFound(key, null);
            }
            if (!current.resourceVersion().equals(record.resourceVersion())) {
                throw new LeaseConflict(key, false, null);
            }
            stored = store(key, record);
        }
        notify(key, stored);
        return stored;
    }

    /** Unconditional write (the controller side in tests). */
    public CandidateRecord put(LeaseKey key, CandidateRecord record) {
        CandidateRecord stored;
        synchronized (this) {
            stored = items.put(key, record.withResourceVersion(Long.toString(version.incrementAndGet())));
            stored = items.get(key);
        }
        notify(key, stored);
        return stored;
    }

    public Optional<CandidateRecord> peek(LeaseKey key) {
        return Optional.ofNullable(items.get(key));
    }

    private CandidateRecord store(LeaseKey key, CandidateRecord record) {
        writes.incrementAndGet();
        CandidateRecord stored = record.withResourceVersion(Long.toString(version.incrementAndGet()));
        items.put(key, stored);
        return stored;
    }

    private void notify(LeaseKey key, CandidateRecord r) {
        watchers.getOrDefault(key, List.of()).forEach(w -> w.accept(Optional.of(r)));
    }

    @Override
    public LeaseStore.LeaseWatch watch(LeaseKey key, Consumer<Optional<CandidateRecord>> listener) {
        List<Consumer<Optional<CandidateRecord>>> list =
                watchers.computeIfAbsent(key, k -> new CopyOnWriteArrayList<>());
        list.add(listener);
        return () -> list.remove(listener);
    }
}
