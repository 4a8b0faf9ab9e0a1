package dev.tenure.maintenance.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class GoDurationTest {

    @ParameterizedTest(name = "{0} = {1} ms")
    @CsvSource({
        "0,0",
        "90s,90000",
        "5m,300000",
        "1h30m,5400000",
        "250ms,250",
        "1.5s,1500",
        "2h,7200000",
        "1m0.5s,60500",
        "100us,0",
        ".5s,500"
    })
    void parsesGoDurations(String text, long millis) {
        assertThat(GoDuration.parse("spec.window", text).toMillis()).isEqualTo(millis);
    }

    @ParameterizedTest(name = "\"{0}\" is refused")
    @ValueSource(strings = {"-5s", "5", "5 s", "five minutes", "5d", "", "PT5M", "1h-2m"})
    void refusesOthersNamingTheField(String text) {
        assertThatThrownBy(() -> GoDuration.parse("spec.drain.timeout", text))
                .isInstanceOf(GoDuration.InvalidDuration.class)
                .hasMessageStartingWith("spec.drain.timeout: ")
                .hasMessageContaining("not a duration");
    }

    /** Issue 25: well-formed but longer than any field takes is "too long" (once "not a duration", or accepted). */
    @ParameterizedTest(name = "\"{0}\" is too long")
    @ValueSource(strings = {"720h1s", "1000000h", "100000000h", "99999999999999999999h", "43200m1ns"})
    void refusesDurationsOverTheOneLimitAsTooLong(String text) {
        assertThatThrownBy(() -> GoDuration.parse("spec.window", text))
                .isInstanceOf(GoDuration.InvalidDuration.class)
                .hasMessage("spec.window: \"" + text + "\" is too long; at most 720h (30 days)");
    }

    @ParameterizedTest
    @ValueSource(strings = {"720h", "43200m", "2592000s"})
    void theLimitItselfIsAccepted(String text) {
        assertThat(GoDuration.parse("spec.window", text)).isEqualTo(GoDuration.MAX);
    }

    @ParameterizedTest
    @CsvSource({"90,1m30s", "3600,1h", "5,5s", "0,0s"})
    void formatsShortest(long seconds, String text) {
        assertThat(GoDuration.format(Duration.ofSeconds(seconds))).isEqualTo(text);
    }

    @org.junit.jupiter.api.Test
    void patternAgreesWithParser() {
        assertThat("1h30m").matches(GoDuration.PATTERN);
        assertThat("-1s").doesNotMatch(GoDuration.PATTERN);
    }

    /**
     * Issue 38 item 2: every form the CRD pattern admits (fractions, each unit, combinations, past int64) is
     * parsed or refused naming the field; a fraction of a nanosecond once threw ArithmeticException.
     */
    @ParameterizedTest(name = "\"{0}\" -> {1}")
    @CsvSource({
        "0,0",
        "1ns,1",
        "1.ns,1",
        ".0ns,0",
        "0.0ns,0",
        "1.5us,1500",
        "1.5µs,1500",
        "0.001us,1",
        "1.000001ms,1000001",
        "0.000000001s,1",
        "1.5s,1500000000",
        "0.5m,30000000000",
        ".25h,900000000000",
        "1h1m1s1ms1us1ns,3661001001001",
        "1h.5h,5400000000000",
        "719h59m59.999999999s,2591999999999999",
        "1.5ns,refused",
        "0.0000001ns,refused",
        ".5ns,refused",
        "1ns.5ns,refused",
        "0.0001us,refused",
        "1.0000005us,refused",
        "0.0000000001ms,refused",
        "1.0000000001s,refused",
        "0.00000000001m,refused",
        "0.000000000001h,refused",
        "1s0.5ns,refused",
        "9223372036854775808ns,refused",
        "9223372036.854775808s,refused",
        "99999999999999999999999999999999h,refused",
        "720h0.5ns,refused",
        "-1s,refused",
        "+1s,refused",
        "1e3s,refused",
        "1.5,refused",
        "ns,refused",
        "., refused"
    })
    void everyFormThePatternAdmitsIsParsedOrRefusedNamingTheField(String text, String expected) {
        String field = "spec.drain.timeout";
        if (expected.strip().equals("refused")) {
            assertThatThrownBy(() -> GoDuration.parse(field, text))
                    .isInstanceOf(GoDuration.InvalidDuration.class)
                    .hasMessageStartingWith(field + ": \"" + text + "\" ");
        } else {
            assertThat(GoDuration.parse(field, text)).isEqualTo(Duration.ofNanos(Long.parseLong(expected)));
        }
    }

    @ParameterizedTest(name = "\"{0}\" is not whole nanoseconds")
    @ValueSource(strings = {"1.5ns", "0.0000001ns", "1.0000005us"})
    void aFractionOfANanosecondIsRefusedAsSuch(String text) {
        assertThatThrownBy(() -> GoDuration.parse("spec.window", text))
                .isInstanceOf(GoDuration.InvalidDuration.class)
                .hasMessageStartingWith("spec.window: \"" + text + "\" is not a whole number of nanoseconds");
    }

    /**
     * Seeded random texts built from the pattern's own grammar (1 to 4 parts, integer and fraction digits of any
     * length, each unit): whatever the pattern admits, parse returns a duration or an InvalidDuration naming the
     * field, never another exception.
     */
    @org.junit.jupiter.api.Test
    void generatedPatternFormsNeverThrowAnythingButInvalidDuration() {
        long seed = Long.getLong("tenure.duration.seed", System.nanoTime());
        System.out.println("GoDurationTest seed: " + seed + " (replay with -Dtenure.duration.seed=" + seed + ")");
        java.util.Random random = new java.util.Random(seed);
        String[] units = {"ns", "us", "µs", "ms", "s", "m", "h"};
        for (int i = 0; i < 20_000; i++) {
            StringBuilder text = new StringBuilder();
            int parts = 1 + random.nextInt(4);
            for (int p = 0; p < parts; p++) {
                String whole = digits(random, random.nextInt(4) == 0 ? 0 : 1 + random.nextInt(22));
                String fraction = random.nextBoolean() ? "" : "." + digits(random, random.nextInt(14));
                if (whole.isEmpty() && fraction.length() < 2) {
                    whole = "1";
                }
                text.append(whole).append(fraction).append(units[random.nextInt(units.length)]);
            }
            String t = text.toString();
            assertThat(t).as("seed %d", seed).matches(GoDuration.PATTERN);
            try {
                Duration d = GoDuration.parse("spec.window", t);
                assertThat(d).as("%s (seed %d)", t, seed).isBetween(Duration.ZERO, GoDuration.MAX);
            } catch (GoDuration.InvalidDuration e) {
                assertThat(e.getMessage()).as("seed %d", seed).startsWith("spec.window: \"" + t + "\" ");
            }
        }
    }

    private static String digits(java.util.Random random, int n) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) {
            sb.append((char) ('0' + random.nextInt(10)));
        }
        return sb.toString();
    }
}
