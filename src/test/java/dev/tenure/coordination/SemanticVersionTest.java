package dev.tenure.coordination;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SemanticVersionTest {

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(
            nullValues = "NONE",
            value = {
                "1.19.0,        1.19.0",
                "v1.19.0,       1.19.0",
                "' 1.2.3 ',     1.2.3",
                "1.2,           1.2.0",
                "1,             1.0.0",
                "v1,            1.0.0",
                "01.02.03,      1.2.3",
                "1.20.0-alpha.1, 1.20.0-alpha.1",
                "1.20.0-rc.0+build.5, 1.20.0-rc.0",
                "1.20.0+meta,   1.20.0",
                "invalid,       NONE",
                "xyz,           NONE",
                "'',            NONE",
                "1.2-alpha,     NONE",
                "1.2.x,         NONE",
                "1.2.3-,        NONE",
                "1.2.3-01,      NONE",
                "1.2.3-a..b,    NONE",
                "-1.2.3,        NONE",
            })
    void parsesTolerantlyLikeUpstream(String text, String expected) {
        assertThat(SemanticVersion.parseTolerant(text)
                        .map(SemanticVersion::toString)
                        .orElse(null))
                .isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0} vs {1} = {2}")
    @CsvSource({
        "1.2.0,          1.19.0,         -1",
        "1.20.0,         1.19.0,          1",
        "1.1.10,         1.1.2,           1",
        "1.20.0,         1.20,            0",
        "1.20.0-alpha,   1.20.0,         -1",
        "1.20.0-alpha,   1.20.0-alpha.1, -1",
        "1.20.0-alpha.1, 1.20.0-alpha.beta, -1",
        "1.20.0-beta.2,  1.20.0-beta.11, -1",
        "1.20.0-rc.1,    1.20.0-beta.11,  1",
        "1.20.0+a,       1.20.0+b,        0",
        "2.0.0,          1.99.99,         1",
    })
    void comparesLikeSemver(String a, String b, int expected) {
        SemanticVersion left = SemanticVersion.parseTolerant(a).orElseThrow();
        SemanticVersion right = SemanticVersion.parseTolerant(b).orElseThrow();
        assertThat(left.compareTo(right)).isEqualTo(expected);
        assertThat(right.compareTo(left)).isEqualTo(-expected);
    }
}
