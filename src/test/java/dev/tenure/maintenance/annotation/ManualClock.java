package dev.tenure.maintenance.annotation;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.atomic.AtomicReference;

/** A clock the test moves by hand (shared by the emulated cluster, the machine and the controller). */
final class ManualClock extends Clock {
    private final AtomicReference<Instant> now =
            new AtomicReference<>(Instant.now().truncatedTo(ChronoUnit.SECONDS));

    void advance(Duration d) {
        now.updateAndGet(t -> t.plus(d));
    }

    @Override
    public Instant instant() {
        return now.get();
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }
}
