package dev.tenure.election;

import java.time.Duration;

/**
 * Hooks the election loops report to; the operator implements them with Micrometer
 * ({@code tenure_leader_*}). Defaults do nothing. Called on the loop's thread: keep them cheap.
 */
public interface ElectionMetrics {

    ElectionMetrics NONE = new ElectionMetrics() {};

    /** Leadership of {@code lease} was gained ({@code true}) or lost / given up ({@code false}). */
    default void leadershipChanged(LeaseKey lease, boolean leading) {}

    /** A renew of a held lease succeeded after {@code latency} (both measured on the injected clock). */
    default void renewSucceeded(LeaseKey lease, Duration latency) {}

    /** A renew attempt of a held lease failed. */
    default void renewFailed(LeaseKey lease, LeaseStoreException cause) {}

    /** {@code lease} was taken over before its expiry on evidence that its holder's process had ended. */
    default void tookOverOnEvidence(LeaseKey lease, ProcessEnd.Reason reason) {}
}
