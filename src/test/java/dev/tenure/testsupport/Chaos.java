package dev.tenure.testsupport;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * A seeded chaos suite (faults, restarts, real-time stalls): minutes in all. Tagged {@code chaos}; {@code make test}
 * runs it with a few runs per suite, {@code make chaos} with many, {@code make test-fast} leaves it out.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Tag("chaos")
public @interface Chaos {}
