package dev.tenure.kube;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Issue 50 item 5: control characters in user text are refused by name and position, and shown escaped. */
class UserTextTest {

    static Stream<Arguments> texts() {
        return Stream.of(
                Arguments.of("plain text", "kernel upgrade", null, "kernel upgrade"),
                Arguments.of("non-ASCII letters are text", "Wartung für Kärnten ✓", null, "Wartung für Kärnten ✓"),
                Arguments.of(
                        "an ANSI colour and a NUL",
                        "a\u001b[31mb\u0000c",
                        "spec.reason: must not contain control characters (U+001B at position 1)",
                        "a\\u001b[31mb\\u0000c"),
                Arguments.of(
                        "a newline",
                        "one\ntwo",
                        "spec.reason: must not contain control characters (U+000A at position 3)",
                        "one\\u000atwo"),
                Arguments.of(
                        "DEL",
                        "x\u007f",
                        "spec.reason: must not contain control characters (U+007F at position 1)",
                        "x\\u007f"),
                Arguments.of(
                        "a C1 CSI, which terminals obey like ESC [",
                        "\u009b2J",
                        "spec.reason: must not contain control characters (U+009B at position 0)",
                        "\\u009b2J"),
                Arguments.of("U+00A0 (no-break space) is not a control", "a\u00a0b", null, "a\u00a0b"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("texts")
    void refusedByNameAndPositionAndShownEscaped(String name, String text, String refusal, String printable) {
        assertThat(UserText.refusal("spec.reason", text)).isEqualTo(Optional.ofNullable(refusal));
        assertThat(UserText.printable(text)).isEqualTo(printable);
        assertThat(UserText.printable(text).chars().filter(UserText::isControl)).isEmpty();
    }
}
