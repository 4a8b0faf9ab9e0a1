package dev.tenure.operator;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Issue 38 item 10: the node lease's renewal period was described two ways (a third in the configuration tables,
 * a quarter in the walk-through). The election core's Heartbeat renews a lease without a window every quarter of
 * its duration (kubelet parity; LeaseStep sets no renew interval of its own): every page says so, with the value.
 */
class LeaseRenewalDocsTest {

    private static final Pattern RENEWAL = Pattern.compile("renew(?:ed|s)? (?:it )?every (third|quarter|fourth)");

    @Test
    void theNodeLeaseRenewalIsDescribedOneWay() throws IOException {
        for (String page : new String[] {"README.md", "docs/configuration.md", "docs/node-maintenance.md"}) {
            String text = Files.readString(Path.of(page));
            Matcher m = RENEWAL.matcher(text);
            while (m.find()) {
                assertThat(m.group(1)).as(page + ": " + m.group()).isEqualTo("quarter");
            }
        }
        assertThat(Files.readString(Path.of("docs/configuration.md")))
                .contains("`tenure.maintenance.lease.duration` | `60s` | lease duration without a window (a heartbeat"
                        + " renews it every quarter: 15 s at the default)");
        assertThat(Files.readString(Path.of("docs/node-maintenance.md")))
                .contains("| `lease.duration` | `60s` | lease duration without a window (a heartbeat renews it every"
                        + " quarter: 15 s at the default)");
        assertThat(Files.readString(Path.of("src/main/java/dev/tenure/maintenance/machine/LeaseStep.java")))
                .as("the node-lease heartbeat keeps the core's default interval (a quarter)")
                .doesNotContain(".renewInterval(");
    }
}
