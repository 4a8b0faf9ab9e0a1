package dev.tenure.coordination;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.Map;

/**
 * What the controller reads off LeaseCandidates without the full mapping (that is the election adapter's,
 * {@code KubeLeaseCandidateStore.toRecord}), and the wire format of the pings it writes.
 */
final class KubeObjects {

    /** metav1.MicroTime wire format (RFC 3339 with exactly six fractional digits). */
    static final DateTimeFormatter MICRO_TIME =
            DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSSXXX").withZone(ZoneOffset.UTC);

    private KubeObjects() {}

    static String microTime(Instant t) {
        return MICRO_TIME.format(t.truncatedTo(ChronoUnit.MICROS));
    }

    /** A LeaseCandidate's spec.leaseName without parsing the rest (checked for every Lease event). */
    static String leaseName(GenericKubernetesResource r) {
        Object spec = r.getAdditionalProperties().get("spec");
        Object name = spec instanceof Map<?, ?> m ? m.get("leaseName") : null;
        return name == null ? null : name.toString();
    }
}
