package dev.tenure.maintenance.machine;

import io.quarkus.arc.DefaultBean;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;

/** Default until the coordination package provides a handover: nothing to hand over. */
@DefaultBean
@ApplicationScoped
public class NoLeadershipHandover implements LeadershipHandover {
    @Override
    public Outcome handOver(String nodeName, Instant startedAt, Instant now) {
        return Outcome.complete("no leadership handover configured");
    }
}
