package dev.tenure.bench;

import java.util.List;
import java.util.stream.Collectors;

/** The printed table: one block per row, absolute figures per subject, then the ratio and the notes. */
final class BenchTable {
    private BenchTable() {}

    static String render(List<RowResult> rows) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format("%-4s %-62s %-8s %s%n", "row", "what", "status", "ratio"));
        sb.append("-".repeat(110)).append('\n');
        for (RowResult r : rows) {
            String ratio = r.ratio() == null ? "" : Bench.fmt(r.ratio()) + "x  (" + r.ratioMeaning() + ")";
            sb.append(String.format("%-4s %-62s %-8s %s%n", r.id(), r.title(), r.status(), ratio));
            if (r.reason() != null) {
                sb.append("       reason: ").append(r.reason()).append('\n');
            }
            var bySubject = r.measurements().stream()
                    .collect(Collectors.groupingBy(
                            RowResult.Measurement::subject, java.util.LinkedHashMap::new, Collectors.toList()));
            bySubject.forEach((subject, ms) -> sb.append(String.format(
                    "       %-34s %s%n",
                    subject,
                    ms.stream()
                            .map(m -> m.metric() + " " + Bench.fmt(m.value())
                                    + (m.unit().isEmpty() ? "" : " " + m.unit()))
                            .collect(Collectors.joining(", ")))));
            r.notes().forEach(n -> sb.append("       - ").append(n).append('\n'));
        }
        return sb.toString();
    }
}
