package dev.tenure.bench;

import java.time.Duration;

/** leaseDuration / renewDeadline / retryPeriod, as client-go and fabric8 take them. */
record ElectionProfile(String name, Duration leaseDuration, Duration renewDeadline, Duration retryPeriod) {
    /** The client-go / Java Operator SDK defaults. */
    static final ElectionProfile DEFAULT =
            new ElectionProfile("15s/10s/2s", Duration.ofSeconds(15), Duration.ofSeconds(10), Duration.ofSeconds(2));
    /** The defaults scaled by 1/10 (retryPeriod 1/10 as well), so many trials fit in seconds. */
    static final ElectionProfile SCALED =
            new ElectionProfile("1.5s/1s/0.2s", Duration.ofMillis(1500), Duration.ofSeconds(1), Duration.ofMillis(200));
}
