package dev.tenure.election;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.function.LongSupplier;

/**
 * An {@link InstantSource} that only moves forward at the rate of {@code System.nanoTime()}:
 * anchored once at the wall time of its creation, then advanced by elapsed nanoseconds. A
 * wall-clock step (NTP, an admin's {@code date -s}) never moves it, so deadlines and expiry
 * measured on it stay true — Go's {@code time.Now()} carries such a monotonic reading, which is
 * why client-go is immune to clock steps. Give it to {@link ElectionConfig.Settings#monotonic};
 * wall time is only for the timestamps written into a Lease.
 *
 * <p>This is wiring, like {@link ExecutorScheduler}: the one class of the core that reads the
 * machine's clocks (the architecture test names it as the exception).
 */
public final class MonotonicClock implements InstantSource {
    private final Instant anchor;
    private final long anchorNanos;
    private final LongSupplier nanos;

    MonotonicClock(Instant anchor, LongSupplier nanos) {
        this.anchor = anchor;
        this.nanos = nanos;
        this.anchorNanos = nanos.getAsLong();
    }

    /** The process's monotonic clock, anchored at the current wall time. */
    public static MonotonicClock system() {
        return new MonotonicClock(Clock.systemUTC().instant(), System::nanoTime);
    }

    @Override
    public Instant instant() {
        return anchor.plus(Duration.ofNanos(nanos.getAsLong() - anchorNanos));
    }
}
