package dev.tenure.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;

/**
 * Where the suite's time goes, per test class: when it started (seconds into the run), its wall time, the CPU the
 * whole test JVM used meanwhile (the class's own only while nothing ran beside it) and the thread (the lane) it ran
 * on; tab-separated into the file the system property {@value #FILE_PROPERTY} names (pom.xml:
 * {@code target/test-class-times.tsv}), written when the run ends. Registered through META-INF/services.
 *
 * <p>Two rows more, for the test JVM's phases: {@code (before the plan)}, from the JVM's start to the first class (the
 * fork's start, JUnit's discovery and the Quarkus builds of every profile's application, which happen at discovery),
 * started at minus its length; and {@code (plan)}, the whole run of the classes. Their CPU is the JVM's in that phase,
 * so the two add up to the test JVM's CPU (docs/development.md, "Where the CPU goes").
 */
public final class ClassTimesListener implements TestExecutionListener {
    static final String FILE_PROPERTY = "test-class-times.file";

    private record Start(long nanos, long cpuNanos) {}

    private final Map<String, Start> running = new ConcurrentHashMap<>();
    private final List<String> lines = new ArrayList<>();
    private volatile long planStarted;
    private volatile long planStartedCpu;
    private volatile long jvmUptimeAtPlan;

    @Override
    public void testPlanExecutionStarted(TestPlan testPlan) {
        planStarted = System.nanoTime();
        planStartedCpu = cpuNanos();
        jvmUptimeAtPlan = ManagementFactory.getRuntimeMXBean().getUptime();
    }

    @Override
    public void executionStarted(TestIdentifier test) {
        if (isClass(test)) {
            running.put(test.getUniqueId(), new Start(System.nanoTime(), cpuNanos()));
        }
    }

    @Override
    public void executionFinished(TestIdentifier test, TestExecutionResult result) {
        Start start = running.remove(test.getUniqueId());
        if (start == null) {
            return;
        }
        long now = System.nanoTime();
        String line = String.format(
                java.util.Locale.ROOT,
                "%s\t%.1f\t%.1f\t%.1f\t%s",
                ((ClassSource) test.getSource().orElseThrow()).getClassName(),
                (start.nanos() - planStarted) / 1e9,
                (now - start.nanos()) / 1e9,
                (cpuNanos() - start.cpuNanos()) / 1e9,
                Thread.currentThread().getName());
        synchronized (lines) {
            lines.add(line);
        }
    }

    @Override
    public void testPlanExecutionFinished(TestPlan testPlan) {
        String file = System.getProperty(FILE_PROPERTY, "");
        if (file.isBlank()) {
            return;
        }
        List<String> out = new ArrayList<>();
        out.add("class\tstarted_s\twall_s\tjvm_cpu_s\tthread");
        out.add(String.format(
                java.util.Locale.ROOT,
                "(before the plan)\t%.1f\t%.1f\t%.1f\t-",
                -jvmUptimeAtPlan / 1e3,
                jvmUptimeAtPlan / 1e3,
                planStartedCpu / 1e9));
        out.add(String.format(
                java.util.Locale.ROOT,
                "(plan)\t0.0\t%.1f\t%.1f\t-",
                (System.nanoTime() - planStarted) / 1e9,
                (cpuNanos() - planStartedCpu) / 1e9));
        synchronized (lines) {
            out.addAll(lines);
        }
        try {
            Path path = Path.of(file);
            Files.createDirectories(path.toAbsolutePath().getParent());
            Files.write(path, out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static boolean isClass(TestIdentifier test) {
        // a top-level class: its parent is the engine
        return test.getSource().orElse(null) instanceof ClassSource
                && test.getParentIdObject()
                        .map(p -> p.getSegments().size() == 1)
                        .orElse(false);
    }

    private static long cpuNanos() {
        return ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os
                ? os.getProcessCpuTime()
                : 0;
    }
}
