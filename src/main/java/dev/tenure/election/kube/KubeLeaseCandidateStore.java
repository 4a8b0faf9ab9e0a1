package dev.tenure.election.kube;

import dev.tenure.election.CandidateRecord;
import dev.tenure.election.LeaseCandidateStore;
import dev.tenure.election.LeaseKey;
import dev.tenure.election.LeaseNotFound;
import dev.tenure.election.LeaseStore;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.logging.Logger;

/**
 * {@link LeaseCandidateStore} on {@code coordination.k8s.io} LeaseCandidates, in whichever
 * version the API server serves: v1beta1, else v1alpha2 ({@link #detect}). Both versions have the
 * same spec fields, so one generic mapping serves both. RFC 3339 micro-time strings on the wire.
 */
public final class KubeLeaseCandidateStore implements LeaseCandidateStore {
    private static final Logger LOG = Logger.getLogger(KubeLeaseCandidateStore.class.getName());
    public static final String GROUP = "coordination.k8s.io";
    /** Preferred first. */
    public static final List<String> VERSIONS = List.of("v1beta1", "v1alpha2");

    private static final DateTimeFormatter MICRO_TIME =
            DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSSX").withZone(java.time.ZoneOffset.UTC);

    private final KubernetesClient client;
    private final String apiVersion;

    public KubeLeaseCandidateStore(KubernetesClient client, String version) {
        this.client = client;
        this.apiVersion = GROUP + "/" + version;
    }

    /**
     * The store for the first served LeaseCandidate version (v1beta1, v1alpha2), or empty when
     * the API is not served (callers log it and report it in health; no crash).
     */
    public static Optional<KubeLeaseCandidateStore> detect(KubernetesClient client, String namespace) {
        for (String version : VERSIONS) {
            try {
                client.genericKubernetesResources(GROUP + "/" + version, "LeaseCandidate")
                        .inNamespace(namespace)
                        .list(new ListOptionsBuilder().withLimit(1L).build());
                return Optional.of(new KubeLeaseCandidateStore(client, version));
            } catch (KubernetesClientException e) {
                if (e.getCode() != 404) {
                    LOG.info("probing LeaseCandidate " + version + " failed: " + e.getMessage());
                }
            }
        }
        return Optional.empty();
    }

    public String apiVersion() {
        return apiVersion;
    }

    private MixedOperation<
                    GenericKubernetesResource, GenericKubernetesResourceList, Resource<GenericKubernetesResource>>
            ops() {
        return client.genericKubernetesResources(apiVersion, "LeaseCandidate");
    }

    @Override
    public CandidateRecord get(LeaseKey key) {
        GenericKubernetesResource r;
        try {
            r = ops().inNamespace(key.namespace()).withName(key.name()).get();
        } catch (RuntimeException e) {
            throw KubeErrors.map(key, e, false);
        }
        if (r == null) {
            throw new LeaseNotFound(key, null);
        }
        return toRecord(r);
    }

    @Override
    public CandidateRecord create(LeaseKey key, CandidateRecord record) {
        try {
            return toRecord(ops().inNamespace(key.namespace())
                    .resource(toResource(key, record.withResourceVersion(null)))
                    .create());
        } catch (RuntimeException e) {
            throw KubeErrors.map(key, e, true);
        }
    }

    @Override
    public CandidateRecord update(LeaseKey key, CandidateRecord record) {
        try {
            return toRecord(ops().inNamespace(key.namespace())
                    .resource(toResource(key, record))
                    .update());
        } catch (RuntimeException e) {
            throw KubeErrors.map(key, e, false);
        }
    }

    @Override
    public LeaseStore.LeaseWatch watch(LeaseKey key, Consumer<Optional<CandidateRecord>> listener) {
        Watch w = ops().inNamespace(key.namespace()).withName(key.name()).watch(new Watcher<>() {
            @Override
            public void eventReceived(Action action, GenericKubernetesResource resource) {
                switch (action) {
                    case ADDED, MODIFIED -> listener.accept(Optional.of(toRecord(resource)));
                    case DELETED -> listener.accept(Optional.empty());
                    default -> {}
                }
            }

            @Override
            public void onClose(WatcherException cause) {
                LOG.info("watch on LeaseCandidate " + key + " closed: " + cause.getMessage()
                        + "; pings are answered at the next renew");
            }
        });
        return w::close;
    }

    // ------------------------------------------------------------------ mapping

    @SuppressWarnings("unchecked")
    public static CandidateRecord toRecord(GenericKubernetesResource r) {
        Map<String, Object> spec =
                r.getAdditionalProperties().get("spec") instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
        return new CandidateRecord(
                r.getMetadata().getNamespace(),
                r.getMetadata().getName(),
                (String) spec.get("leaseName"),
                (String) spec.get("binaryVersion"),
                (String) spec.get("emulationVersion"),
                (String) spec.get("strategy"),
                parseTime(spec.get("renewTime")),
                parseTime(spec.get("pingTime")),
                parseTime(r.getMetadata().getCreationTimestamp()),
                r.getMetadata().getLabels(),
                r.getMetadata().getResourceVersion());
    }

    GenericKubernetesResource toResource(LeaseKey key, CandidateRecord c) {
        GenericKubernetesResource r = new GenericKubernetesResource();
        r.setApiVersion(apiVersion);
        r.setKind("LeaseCandidate");
        r.setMetadata(new ObjectMetaBuilder()
                .withNamespace(key.namespace())
                .withName(key.name())
                .withLabels(c.labels().isEmpty() ? null : c.labels())
                .withResourceVersion(c.resourceVersion())
                .build());
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("leaseName", c.leaseName());
        put(spec, "binaryVersion", c.binaryVersion());
        put(spec, "emulationVersion", c.emulationVersion());
        put(spec, "strategy", c.strategy());
        put(
                spec,
                "renewTime",
                c.renewTime() == null ? null : MICRO_TIME.format(c.renewTime().truncatedTo(ChronoUnit.MICROS)));
        put(
                spec,
                "pingTime",
                c.pingTime() == null ? null : MICRO_TIME.format(c.pingTime().truncatedTo(ChronoUnit.MICROS)));
        r.setAdditionalProperty("spec", spec);
        return r;
    }

    private static void put(Map<String, Object> m, String k, Object v) {
        if (v != null) {
            m.put(k, v);
        }
    }

    /** RFC 3339 (metav1.Time or MicroTime); {@code null} when absent or empty. */
    public static Instant parseTime(Object v) {
        if (v == null || v.toString().isEmpty()) {
            return null;
        }
        return java.time.ZonedDateTime.parse(v.toString(), java.time.format.DateTimeFormatter.ISO_DATE_TIME)
                .toInstant();
    }
}
