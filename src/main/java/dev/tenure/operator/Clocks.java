package dev.tenure.operator;

import io.quarkus.arc.DefaultBean;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.time.Clock;

/**
 * The one place the operator's wall clock comes from: the jobs (both maintenance doors, the machine, the event
 * recorder, coordination) are handed this bean and never call the system clock themselves. An application or a
 * test may supply a Clock bean of its own instead.
 */
@ApplicationScoped
public class Clocks {

    @Produces
    @DefaultBean
    @Singleton
    Clock clock() {
        return Clock.systemUTC();
    }
}
