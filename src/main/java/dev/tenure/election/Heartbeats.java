package dev.tenure.election;

import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * At most one running {@link Heartbeat} per lease (e.g. one per node in maintenance). Thread-safe.
 */
public final class Heartbeats implements AutoCloseable {
    private final Map<LeaseKey, Heartbeat> running = new ConcurrentHashMap<>();

    /**
     * Starts {@code heartbeat} unless one is already running for its lease (then that one is kept
     * and returned): calling this every reconcile is idempotent.
     */
    public Heartbeat ensureStarted(Heartbeat heartbeat) {
        Heartbeat current = running.compute(
                heartbeat.lease(), (k, existing) -> existing != null && existing.isRunning() ? existing : heartbeat);
        current.start();
        return current;
    }

    public Optional<Heartbeat> get(LeaseKey lease) {
        return Optional.ofNullable(running.get(lease)).filter(Heartbeat::isRunning);
    }

    /** Stops renewing {@code lease}; the lease expires by itself. */
    public void stop(LeaseKey lease) {
        Heartbeat h = running.remove(lease);
        if (h != null) {
            h.stop();
        }
    }

    /** Stops renewing and releases {@code lease} if still held; returns whether a release was written. */
    public boolean stopAndRelease(LeaseKey lease) {
        Heartbeat h = running.remove(lease);
        return h != null && h.stopAndRelease();
    }

    public Set<LeaseKey> leases() {
        return Set.copyOf(running.keySet());
    }

    /** Stops all without releasing (process shutdown: the leases outlive us until they expire). */
    @Override
    public void close() {
        running.keySet().forEach(this::stop);
    }
}
