package dev.tenure.maintenance.machine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class BoundedNamesTest {

    /** RFC 1123 DNS subdomain, as kube-apiserver validates a Lease name. */
    static final Pattern DNS_SUBDOMAIN =
            Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

    static String nodeName(int length, char filler) {
        StringBuilder b = new StringBuilder("n");
        while (b.length() < length - 1) {
            b.append(b.length() % 60 == 0 ? '.' : filler);
        }
        return b.append('z').toString();
    }

    @ParameterizedTest
    @CsvSource({
        "w1, node-w1",
        "worker-17.rack-3.example.com, node-worker-17.rack-3.example.com",
    })
    void usualNodeNamesKeepTheMedik8sLeaseName(String node, String lease) {
        assertThat(MaintenanceSettings.defaults().leaseName(node)).isEqualTo(lease);
    }

    @ParameterizedTest
    @ValueSource(ints = {248, 249, 250, 253})
    void longNodeNamesGetAValidLeaseNameOfAtMost253Characters(int length) {
        String node = nodeName(length, 'a');
        String lease = MaintenanceSettings.defaults().leaseName(node);
        assertThat(lease).hasSizeLessThanOrEqualTo(253).matches(DNS_SUBDOMAIN);
        assertThat(lease).startsWith("node-n");
        if (length > 248) {
            assertThat(lease).isNotEqualTo("node-" + node);
        }
    }

    @ParameterizedTest
    @ValueSource(chars = {'-', '.'})
    void theHeadNeverEndsInADashOrDotBeforeTheHash(char filler) {
        String shortened = BoundedNames.shorten("a" + String.valueOf(filler).repeat(100) + "b", 63);
        assertThat(shortened).hasSizeLessThanOrEqualTo(63).matches("a-[0-9a-f]{10}");
    }

    @ParameterizedTest
    @ValueSource(ints = {64, 100, 253})
    void twoLongNamesDifferingOnlyInTheirTailStayApart(int length) {
        String a = nodeName(length, 'x');
        String b = a.substring(0, a.length() - 1) + "y";
        assertThat(BoundedNames.shorten(a, 63)).hasSizeLessThanOrEqualTo(63).isNotEqualTo(BoundedNames.shorten(b, 63));
    }

    @Test
    void firstSeenKeepsTheFirstNamesAndCountsEveryLaterOneAsOther() {
        BoundedNames.FirstSeen bound = new BoundedNames.FirstSeen(2);

        assertThat(bound.label("app/web")).isEqualTo("app/web");
        assertThat(bound.label("db/pg")).isEqualTo("db/pg");
        assertThat(bound.label("kafka/broker")).isEqualTo(BoundedNames.FirstSeen.OTHER);
        assertThat(bound.label("app/web"))
                .as("an admitted name keeps its series")
                .isEqualTo("app/web");
        assertThat(bound.label("x".repeat(300))).isEqualTo(BoundedNames.FirstSeen.OTHER);
    }

    @Test
    void firstSeenShortensLongNamesAndNeverAdmitsOtherItself() {
        BoundedNames.FirstSeen bound = new BoundedNames.FirstSeen(3);

        assertThat(bound.label("x".repeat(300))).hasSize(63).matches("x+-[0-9a-f]{10}");
        assertThat(bound.label(BoundedNames.FirstSeen.OTHER)).isEqualTo(BoundedNames.FirstSeen.OTHER);
        assertThat(bound.label("a")).isEqualTo("a");
        assertThat(bound.label("b")).isEqualTo("b");
        assertThat(bound.label("c")).isEqualTo(BoundedNames.FirstSeen.OTHER);
    }
}
