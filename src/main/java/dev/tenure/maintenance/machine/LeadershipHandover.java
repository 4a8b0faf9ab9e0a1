package dev.tenure.maintenance.machine;

import java.time.Instant;

/**
 * The step between cordon and drain that moves leadership of leases held by workloads on the node
 * to candidates elsewhere, so a drain does not kill leaders. The coordination package plugs in its
 * implementation as a CDI bean; without one, {@link NoLeadershipHandover} reports done at once.
 *
 * <p>Called on every reconcile until it returns {@link Outcome#done()}, so an implementation must be
 * idempotent and quick (start the handover, report progress; never wait for it).
 */
public interface LeadershipHandover {

    /**
     * Starts (or goes on with) handing away the leadership held on {@code nodeName}.
     *
     * @param nodeName the node being put into maintenance (already cordoned)
     * @param startedAt when the handover step began (first call), for the implementation's own bookkeeping
     * @param now the machine's clock
     */
    Outcome handOver(String nodeName, Instant startedAt, Instant now);

    /** Whether the handover is complete, and if not, what is still held on the node. */
    public record Outcome(boolean done, String message) {
        public static Outcome complete(String message) {
            return new Outcome(true, message);
        }

        public static Outcome inProgress(String message) {
            return new Outcome(false, message);
        }
    }
}
