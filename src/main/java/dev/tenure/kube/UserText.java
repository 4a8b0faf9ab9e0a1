package dev.tenure.kube;

import java.util.Optional;

/**
 * Text a user wrote ({@code spec.reason}, a node annotation's value, a LeaseCandidate's {@code binaryVersion}) on its way to a terminal: events, the Node's
 * {@code tenure.dev/Maintenance} condition, {@code kubectl get}. A control character there is an escape sequence an
 * admin's terminal obeys ({@code ESC [31m}, a C1 {@code CSI}) or a NUL that cuts the line, so it is refused where the
 * text comes in (the CRD's CEL rule, the webhook) and shown escaped wherever it is copied anyway. Control characters
 * are Unicode's category Cc: U+0000–U+001F, U+007F and U+0080–U+009F (tab and newline included: every field this
 * guards is one line). Pure.
 */
public final class UserText {

    /**
     * The CRD's CEL rule for a user-text field: no control character (RE2's {@code \x{…}} escapes, as in
     * kube-apiserver's CEL). Kept beside {@link #isControl} so the two say the same.
     */
    public static final String NO_CONTROL_CHARACTERS_RULE = "!self.matches('[\\\\x{0}-\\\\x{1F}\\\\x{7F}-\\\\x{9F}]')";

    private UserText() {}

    /** Whether {@code c} is a control character (Unicode category Cc). */
    public static boolean isControl(int c) {
        return c <= 0x1F || (c >= 0x7F && c <= 0x9F);
    }

    /**
     * Why {@code field}'s value {@code text} is refused, naming the field and the first control character by code
     * point and position (never echoing the text itself); empty when it has none.
     */
    public static Optional<String> refusal(String field, String text) {
        if (text == null) {
            return Optional.empty();
        }
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (isControl(c)) {
                return Optional.of(String.format(
                        "%s: must not contain control characters (U+%04X at position %d)", field, (int) c, i));
            }
        }
        return Optional.empty();
    }

    /** {@code text} with each control character shown as its Java escape ({@code \u001b}); null stays null. */
    public static String printable(String text) {
        if (text == null) {
            return null;
        }
        StringBuilder out = null;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (isControl(c)) {
                if (out == null) {
                    out = new StringBuilder(text.length() + 8).append(text, 0, i);
                }
                out.append(String.format("\\u%04x", (int) c));
            } else if (out != null) {
                out.append(c);
            }
        }
        return out == null ? text : out.toString();
    }
}
