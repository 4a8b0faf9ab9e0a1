package dev.tenure.operator;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Whether the leader's watches are alive: a watch that is not watching or not synced counts as dead only once it
 * has been so for longer than {@code grace} (informers re-list and re-watch by themselves after an API server
 * restart; a liveness restart is for the watch that never comes back); a stopped one is dead at once. Pure apart from remembering since
 * when each watch has been unhealthy; time comes in as {@code now}.
 */
public final class WatchLiveness {

    /** One informer as its health indicator reports it. */
    public record Watch(String name, boolean running, boolean watching, boolean synced) {
        boolean healthy() {
            return running && watching && synced;
        }

        String state() {
            if (!running) {
                return "stopped";
            }
            if (!synced) {
                return "not synced";
            }
            return watching ? "watching" : "not watching";
        }
    }

    /** The probe's answer: live or not, with one detail per watch. */
    record Verdict(boolean live, Map<String, String> details) {}

    private final Duration grace;
    private final Map<String, Instant> unhealthySince = new HashMap<>();

    WatchLiveness(Duration grace) {
        if (grace == null || grace.isNegative()) {
            throw new IllegalArgumentException("tenure.health.watch-grace must be >= 0, was " + grace);
        }
        this.grace = grace;
    }

    synchronized Verdict assess(List<Watch> watches, Instant now) {
        Map<String, String> details = new TreeMap<>();
        Set<String> seen = new HashSet<>();
        boolean live = true;
        for (Watch w : watches) {
            seen.add(w.name());
            if (w.healthy()) {
                unhealthySince.remove(w.name());
                details.put(w.name(), w.state());
                continue;
            }
            Instant since = unhealthySince.computeIfAbsent(w.name(), n -> now);
            Duration down = Duration.between(since, now);
            // A stopped informer never starts again by itself (fabric8 stops one whose watch ended with an error it
            // does not retry, e.g. an object it cannot read): no grace, or every later event is missed meanwhile.
            boolean stopped = !w.running();
            boolean dead = stopped || down.compareTo(grace) > 0;
            live &= !dead;
            details.put(
                    w.name(),
                    w.state() + " for " + down.toSeconds() + "s"
                            + (stopped
                                    ? " (a stopped informer does not restart by itself)"
                                    : dead
                                            ? " (longer than tenure.health.watch-grace " + grace.toSeconds() + "s)"
                                            : ""));
        }
        unhealthySince.keySet().retainAll(seen); // a watch that went away (leadership ended) starts afresh
        return new Verdict(live, details);
    }
}
