package dev.tenure.coordination;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.Map;

/** Reads LeaseCandidates (generic, any served version) and Leases into the election's records. */
final class KubeObjects {

    /** metav1.MicroTime wire format (RFC 3339 with exactly six fractional digits). */
    static final DateTimeFormatter MICRO_TIME =
            DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSSXXX").withZone(ZoneOffset.UTC);

    private KubeObjects() {
    }

    static String microTime(Instant t) {
        return MICRO_TIME.format(t.truncatedTo(ChronoUnit.MICROS));
    }

    static Instant parseTime(Object value) {
        if (value == null) {
            return null;
        }
        String s = value.toString();
        if (s.isEmpty()) {
            return null;
        }
        return ZonedDateTime.parse(s, DateTimeFormatter.ISO_DATE_TIME).toInstant();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> spec(GenericKubernetesResource r) {
        Object spec = r.getAdditionalProperties().get("spec");
        return spec instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
    }

    /** A LeaseCandidate's spec.leaseName without parsing the rest (checked for every Lease event). */
    static String leaseName(GenericKubernetesResource r) {
        return string(spec(r).get("leaseName"));
    }

    static ObservedCandidate candidate(GenericKubernetesResource r) {
        Map<String, Object> spec = spec(r);
        return new ObservedCandidate(
                r.getMetadata().getNamespace(),
                r.getMetadata().getName(),
                leaseName(r),
                string(spec.get("binaryVersion")),
                string(spec.get("emulationVersion")),
                string(spec.get("strategy")),
                parseTime(spec.get("renewTime")),
                parseTime(spec.get("pingTime")),
                parseTime(r.getMetadata().getCreationTimestamp()),
                r.getMetadata().getLabels(),
                r.getMetadata().getResourceVersion());
    }

    static ObservedLease lease(Lease l) {
        var spec = l.getSpec();
        return new ObservedLease(
                l.getMetadata().getNamespace(),
                l.getMetadata().getName(),
                spec == null ? null : spec.getHolderIdentity(),
                spec == null ? null : spec.getPreferredHolder(),
                spec == null ? null : spec.getStrategy(),
                spec == null ? null : spec.getLeaseDurationSeconds(),
                spec == null || spec.getRenewTime() == null ? null : spec.getRenewTime().toInstant(),
                spec == null || spec.getAcquireTime() == null ? null : spec.getAcquireTime().toInstant(),
                l.getMetadata().getResourceVersion());
    }

    /** Copies the election fields of {@code desired} onto {@code target} (other fields are left as they are). */
    static Lease applyTo(ObservedLease desired, Lease target) {
        if (target.getSpec() == null) {
            target.setSpec(new io.fabric8.kubernetes.api.model.coordination.v1.LeaseSpec());
        }
        var spec = target.getSpec();
        spec.setHolderIdentity(desired.holderIdentity());
        spec.setPreferredHolder(desired.preferredHolder());
        spec.setStrategy(desired.strategy());
        spec.setLeaseDurationSeconds(desired.leaseDurationSeconds());
        spec.setRenewTime(zoned(desired.renewTime()));
        spec.setAcquireTime(zoned(desired.acquireTime()));
        return target;
    }

    private static ZonedDateTime zoned(Instant t) {
        return t == null ? null : t.truncatedTo(ChronoUnit.MICROS).atZone(ZoneOffset.UTC);
    }

    private static String string(Object o) {
        return o == null ? null : o.toString();
    }
}
