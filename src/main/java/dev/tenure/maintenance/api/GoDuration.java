package dev.tenure.maintenance.api;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Matcher;

/**
 * Go-style durations ("90s", "5m", "1h30m", "250ms"), the format medik8s and kubectl users write.
 * Negative values are refused: no field of NodeMaintenance means anything by them.
 */
public final class GoDuration {

    /** Same grammar as {@link #parse}; also put in the CRD schema so the API server refuses typos. */
    public static final String PATTERN = "^(0|(([0-9]+(\\.[0-9]*)?|\\.[0-9]+)(ns|us|µs|ms|s|m|h))+)$";

    private static final java.util.regex.Pattern WHOLE = java.util.regex.Pattern.compile(PATTERN);
    private static final java.util.regex.Pattern PART =
            java.util.regex.Pattern.compile("([0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)(ns|us|µs|ms|s|m|h)");
    private static final Map<String, Long> NANOS_PER_UNIT = Map.of(
            "ns",
            1L,
            "us",
            1_000L,
            "µs",
            1_000L,
            "ms",
            1_000_000L,
            "s",
            1_000_000_000L,
            "m",
            60_000_000_000L,
            "h",
            3_600_000_000_000L);

    /**
     * The longest duration any NodeMaintenance field takes, and the longest maintenance either door accepts
     * ({@code spec.window}, and the upper bound of {@code tenure.maintenance.annotation.max-duration}, whose
     * default it is): 30 days. One limit, stated in the CRD schema and docs/node-maintenance.md.
     */
    @SuppressWarnings("CanonicalDuration") // 720h: the limit as Go and the CRD schema write it
    public static final Duration MAX = Duration.ofHours(720);

    /** {@link #MAX} as written in the CRD schema's descriptions and in messages. */
    public static final String MAX_TEXT = "720h";

    private GoDuration() {}

    /** Thrown for text that is not a non-negative Go duration; the message names the field. */
    public static final class InvalidDuration extends IllegalArgumentException {
        private final String field;

        InvalidDuration(String field, String text) {
            super(field + ": \"" + text + "\" is not a duration; write a non-negative Go duration such as"
                    + " \"90s\", \"5m\" or \"1h30m\" (units ns, us, ms, s, m, h)");
            this.field = field;
        }

        InvalidDuration(String field, String text, Duration max) {
            super(field + ": \"" + text + "\" is too long; at most " + format(max) + " (30 days)");
            this.field = field;
        }

        InvalidDuration(String field, String text, String why) {
            super(field + ": \"" + text + "\" " + why);
            this.field = field;
        }

        public String field() {
            return field;
        }
    }

    /** Parses {@code text}; {@code null} or blank means "not set" and gives {@code null}. */
    public static Duration parseOrNull(String field, String text) {
        if (text == null || text.isBlank()) {
            return null;
        }
        return parse(field, text);
    }

    public static Duration parse(String field, String text) {
        String t = text == null ? "" : text.trim();
        if (!WHOLE.matcher(t).matches()) {
            throw new InvalidDuration(field, text);
        }
        if (t.equals("0")) {
            return Duration.ZERO;
        }
        BigDecimal nanos = BigDecimal.ZERO;
        Matcher m = PART.matcher(t);
        while (m.find()) {
            String number = m.group(1);
            BigDecimal value = new BigDecimal(number.startsWith(".") ? "0" + number : number);
            nanos = nanos.add(value.multiply(BigDecimal.valueOf(NANOS_PER_UNIT.get(m.group(2)))));
        }
        // Well-formed but longer than any field takes ("1000000h", or beyond what a long holds): too long, not
        // "not a duration".
        if (nanos.compareTo(BigDecimal.valueOf(MAX.toNanos())) > 0) {
            throw new InvalidDuration(field, text, MAX);
        }
        // A fraction of a nanosecond ("1.5ns", "0.0000001ns", "1.0000000001s") matches the grammar but names no
        // duration Tenure can keep; Go would drop the fraction without a word. Refused by name rather than
        // rounded (once it reached longValueExact: ArithmeticException, a reconcile that failed with no phase).
        if (nanos.stripTrailingZeros().scale() > 0) {
            throw new InvalidDuration(
                    field, text, "is not a whole number of nanoseconds; the smallest step is 1ns (write e.g. \"2ns\")");
        }
        return Duration.ofNanos(nanos.longValueExact());
    }

    /** Shortest Go-style rendering, for messages ("1m30s"). */
    public static String format(Duration d) {
        if (d.isZero()) {
            return "0s";
        }
        StringBuilder sb = new StringBuilder();
        long h = d.toHours();
        int m = d.toMinutesPart();
        int s = d.toSecondsPart();
        int ms = d.toMillisPart();
        if (h > 0) sb.append(h).append('h');
        if (m > 0) sb.append(m).append('m');
        if (s > 0 || ms > 0) {
            sb.append(s);
            if (ms > 0) sb.append('.').append(String.format("%03d", ms).replaceAll("0+$", ""));
            sb.append('s');
        }
        return sb.length() == 0 ? d.toNanos() + "ns" : sb.toString();
    }
}
