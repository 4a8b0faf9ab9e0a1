package dev.tenure.testsupport;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * A test that starts an emulated API server, the Quarkus application, real kubectl or Prometheus: seconds per class.
 * Tagged {@code e2e}; {@code make test} runs it, {@code make test-fast} leaves it out.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Tag("e2e")
public @interface EndToEnd {}
