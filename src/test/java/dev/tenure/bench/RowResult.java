package dev.tenure.bench;

import java.util.ArrayList;
import java.util.List;

/**
 * One row of the benchmark table: absolute measurements per subject, the headline ratio, and notes
 * that say how it was measured. A row whose dependency is missing is {@code skipped} with the reason;
 * a row that threw is {@code failed}; neither carries made-up numbers.
 */
public record RowResult(
        String id,
        String title,
        String status,
        String reason,
        List<Measurement> measurements,
        Double ratio,
        String ratioMeaning,
        List<String> notes,
        double seconds) {

    /** One absolute number: who (Tenure, fabric8, kubectl...), what (median gap...), value and unit. */
    public record Measurement(String subject, String metric, double value, String unit) {}

    static Builder of(String id, String title) {
        return new Builder(id, title);
    }

    static final class Builder {
        private final String id;
        private final String title;
        private final List<Measurement> measurements = new ArrayList<>();
        private final List<String> notes = new ArrayList<>();
        private Double ratio;
        private String ratioMeaning;

        private Builder(String id, String title) {
            this.id = id;
            this.title = title;
        }

        Builder measure(String subject, String metric, double value, String unit) {
            measurements.add(new Measurement(subject, metric, value, unit));
            return this;
        }

        /** The headline ratio and what it is, e.g. "fabric8 median / Tenure median". */
        Builder ratio(double ratio, String meaning) {
            this.ratio = Double.isFinite(ratio) ? ratio : null;
            this.ratioMeaning = meaning;
            return this;
        }

        Builder note(String note) {
            notes.add(note);
            return this;
        }

        RowResult ok(double seconds) {
            return new RowResult(
                    id, title, "ok", null, List.copyOf(measurements), ratio, ratioMeaning, List.copyOf(notes), seconds);
        }

        RowResult skipped(String reason) {
            return new RowResult(
                    id, title, "skipped", reason, List.copyOf(measurements), null, null, List.copyOf(notes), 0);
        }

        RowResult failed(String reason, double seconds) {
            return new RowResult(
                    id, title, "failed", reason, List.copyOf(measurements), null, null, List.copyOf(notes), seconds);
        }
    }
}
