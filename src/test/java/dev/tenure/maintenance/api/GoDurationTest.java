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
}
