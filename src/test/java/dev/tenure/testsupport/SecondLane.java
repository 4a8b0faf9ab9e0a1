package dev.tenure.testsupport;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * A test class that may run beside the others. The suite's one JVM runs the classes one after another on a first
 * lane; a second lane takes these beside that stream (pom.xml's JUnit parameters: a fixed pool of two threads; on by
 * default since issue 48, {@code -Dtests.second-lane=false} runs every class one after another). For
 * classes that mostly wait on real time (lease periods, kubelet reports, pod terminations, fault schedules) and use
 * little CPU, so that the waits of one overlap the work of another (docs/development.md, "Where the time goes"). Not
 * for a class that starts a JVM or an application, or computes, with time bounds of its own: beside a busy first lane
 * it misses them ({@code UpgradeIT}'s child JVM did; {@code TestTiersTest} fails a class here that starts a process).
 *
 * <p>They share one lock: no two of them run at once (the first lane, done with its own classes, waits for the
 * second rather than start another of these beside it), and a class's methods run one after another (without the
 * lock a concurrent class runs its methods concurrently too).
 *
 * <p>Only for a class that owns everything it touches: its own emulated clusters or in-memory stores, its own
 * operator instances. Never a {@code @QuarkusTest} (one application per JVM, started on the first lane), nor a class
 * that writes what the whole JVM shares: system properties ({@code TestTiersTest} checks both), a global metrics
 * registry, or one that counts the JVM's threads or Vert.x instances (the test of {@code EmulatedClusterTest} that
 * judges its cluster's Vert.x judges only the instances its own thread group started).
 *
 * <p>Only these classes take the lock ({@code TestTiersTest} checks): a first-lane class or method that took it would
 * stop the first lane until the second-lane class running then ended.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock(value = SecondLane.LOCK, mode = ResourceAccessMode.READ_WRITE)
public @interface SecondLane {
    /** The lock every second-lane class holds while it runs. */
    String LOCK = "dev.tenure.second-lane";
}
