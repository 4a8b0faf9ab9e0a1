package dev.tenure.operator;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every meter the code registers under {@code tenure.} has a row in the README's metrics table, under its
 * Prometheus name (dots become underscores; the registry adds {@code _total}/{@code _seconds} suffixes).
 */
class MetricsReferenceTest {

    /**
     * Meter names are string literals with at least two dots and no hyphen (most config keys have hyphens); a literal
     * that docs/configuration.md documents as a setting (e.g. {@code tenure.maintenance.annotation.placement}) is a
     * config key, not a meter.
     */
    private static final Pattern METER = Pattern.compile("\"(tenure\\.[a-z_]+\\.[a-z_.]+)\"");

    @Test
    void everyTenureMeterIsDocumented() throws IOException {
        String settings = Files.readString(Path.of("docs", "configuration.md"));
        Set<String> meters = new TreeSet<>();
        try (Stream<Path> files = Files.walk(Path.of("src/main/java"))) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                Matcher m = METER.matcher(Files.readString(f));
                while (m.find()) {
                    if (settings.contains("| `" + m.group(1) + "` |")) {
                        continue;
                    }
                    meters.add(m.group(1).replace('.', '_'));
                }
            }
        }
        assertThat(meters)
                .as("meters found in src/main/java")
                .hasSizeGreaterThan(10)
                .contains("tenure_maintenance_evictions", "tenure_leader_is_leader");
        String section = ReadmeSection.of("metrics");
        assertThat(meters)
                .allSatisfy(name -> assertThat(section)
                        .as("README metrics row for " + name)
                        .containsPattern("\\| `" + name + "(_total|_seconds)?` \\|"));
    }
}
