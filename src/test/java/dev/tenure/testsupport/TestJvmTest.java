package dev.tenure.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import org.junit.jupiter.api.Test;

/**
 * The test JVM's flags (pom.xml's {@code argLine}) hold what the whole suite needs. {@code -XX:TieredStopAtLevel=1}
 * (the client JIT only) also selects HotSpot's client emulation, whose code cache is 48 MiB; {@code make test}'s one
 * JVM outgrew it (the JIT disabled for the rest of the run, then {@code VirtualMachineError: Out of space in CodeCache
 * for method handle intrinsic} in a test), so the argLine sets the tiered default again.
 */
class TestJvmTest {
    @Test
    void theCodeCacheIsLargeEnoughForTheWholeSuite() {
        long max = ManagementFactory.getMemoryPoolMXBeans().stream()
                .filter(pool ->
                        pool.getName().startsWith("CodeHeap") || pool.getName().equals("CodeCache"))
                .mapToLong(TestJvmTest::maxOf)
                .sum();
        assertThat(max)
                .as("the test JVM's code cache (bytes): pom.xml's argLine sets -XX:ReservedCodeCacheSize=240m")
                .isGreaterThanOrEqualTo(200L * 1024 * 1024);
    }

    private static long maxOf(MemoryPoolMXBean pool) {
        long max = pool.getUsage().getMax();
        return max < 0 ? 0 : max;
    }
}
