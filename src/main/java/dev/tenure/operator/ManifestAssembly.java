package dev.tenure.operator;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import io.fabric8.kubernetes.client.utils.KubernetesSerialization;

/**
 * Build step (bound to {@code package}, after quarkus:build) that turns what quarkus-kubernetes and
 * the QOSDK bundle generator wrote into the artifacts we ship:
 * <ul>
 * <li>the OLM bundle, completed with what {@code @CSVMetadata} cannot express in QOSDK 7.2.3
 * (webhook definition, owned-CRD descriptors, the deployment's webhook TLS wiring) and with the
 * monitoring manifests OLM accepts in a bundle (metrics Service, ServiceMonitor, PrometheusRule,
 * Grafana dashboard ConfigMap);</li>
 * <li>plain manifests for clusters without OLM ({@code target/deploy}: CRDs, RBAC, Deployment,
 * Service; monitoring assets apart, since they need the Prometheus operator's CRDs).</li>
 * </ul>
 * Everything here is derived from {@link TenureCsvMetadata}, properties and
 * {@code src/main/kubernetes}; nothing is edited by hand afterwards. The decisions are pure
 * functions over parsed manifests; {@link #main} only reads and writes files.
 */
public final class ManifestAssembly {

    static final String NAME = TenureCsvMetadata.BUNDLE_NAME;
    static final String NAMESPACE = "tenure-system";
    private static final Set<String> MONITORING_KINDS = Set.of("ServiceMonitor", "PrometheusRule");
    private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

    private ManifestAssembly() {
    }

    /** {@code args[0]}: the build directory ({@code target}); {@code args[1]}: the project directory. */
    public static void main(String[] args) throws IOException {
        Path target = Path.of(args.length > 0 ? args[0] : "target");
        Path project = Path.of(args.length > 1 ? args[1] : ".");
        Path kubernetesDir = target.resolve("kubernetes");
        List<Map<String, Object>> resources = canonical(parseAll(Files.readString(kubernetesDir.resolve("kubernetes.yml"))));
        List<Map<String, Object>> crds = readCrds(kubernetesDir);
        String dashboard = Files.readString(project.resolve("src/main/monitoring/tenure-dashboard.json"));

        writeDeploy(target.resolve("deploy"), crds, resources, dashboard);

        Path manifests = target.resolve("bundle").resolve(NAME).resolve("manifests");
        Path csvFile = manifests.resolve(NAME + ".clusterserviceversion.yaml");
        // The generator writes a bundle only once a reconciler exists.
        if (Files.exists(csvFile)) {
            Map<String, Object> csv = canonical(parseAll(Files.readString(csvFile))).get(0);
            Files.writeString(csvFile, toYaml(List.of(completeCsv(csv))));
            for (Map<String, Object> extra : bundleExtras(resources, dashboard)) {
                String kind = ((String) extra.get("kind")).toLowerCase();
                Files.writeString(manifests.resolve(NAME + "-" + kind + ".yaml"), toYaml(List.of(extra)));
            }
        }
    }

    // --- CSV -----------------------------------------------------------------------------------

    /** The CSV with webhook definition, owned-CRD descriptions and webhook TLS wiring added. */
    static Map<String, Object> completeCsv(Map<String, Object> generated) {
        Map<String, Object> csv = deepCopy(generated);
        Map<String, Object> spec = map(csv, "spec");
        spec.put("webhookdefinitions", List.of(webhookDefinition(TenureCsvMetadata.WEBHOOK)));

        Map<String, Object> crds = map(spec, "customresourcedefinitions");
        for (Map<String, Object> owned : list(crds, "owned")) {
            String kind = (String) owned.get("kind");
            String[] display = TenureCsvMetadata.OWNED_KINDS.get(kind);
            if (display != null) {
                owned.putIfAbsent("displayName", display[0]);
                owned.putIfAbsent("description", display[1]);
            }
            owned.put("specDescriptors", descriptors(kind, TenureCsvMetadata.Section.SPEC));
            owned.put("statusDescriptors", descriptors(kind, TenureCsvMetadata.Section.STATUS));
        }

        Map<String, Object> install = map(map(spec, "install"), "spec");
        for (Map<String, Object> deployment : list(install, "deployments")) {
            if (NAME.equals(deployment.get("name"))) {
                Map<String, Object> podSpec = map(map(map(deployment, "spec"), "template"), "spec");
                for (Map<String, Object> container : list(podSpec, "containers")) {
                    if (NAME.equals(container.get("name"))) {
                        wireWebhookTls(container);
                        // One image reference: the one quarkus.container-image.* put in the deployment.
                        map(map(csv, "metadata"), "annotations").put("containerImage", container.get("image"));
                    }
                }
            }
        }
        return csv;
    }

    private static Map<String, Object> webhookDefinition(TenureCsvMetadata.WebhookDefinition webhook) {
        Map<String, Object> rule = new LinkedHashMap<>();
        rule.put("apiGroups", List.of(webhook.group()));
        rule.put("apiVersions", List.of(webhook.version()));
        rule.put("operations", webhook.operations());
        rule.put("resources", List.of(webhook.resource()));
        rule.put("scope", "Cluster");
        Map<String, Object> definition = new LinkedHashMap<>();
        definition.put("type", "ValidatingAdmissionWebhook");
        definition.put("generateName", webhook.generateName());
        definition.put("admissionReviewVersions", List.of("v1"));
        definition.put("deploymentName", NAME);
        definition.put("containerPort", webhook.containerPort());
        definition.put("targetPort", webhook.targetPort());
        definition.put("webhookPath", webhook.path());
        definition.put("failurePolicy", webhook.failurePolicy());
        definition.put("sideEffects", "None");
        definition.put("timeoutSeconds", webhook.timeoutSeconds());
        definition.put("rules", List.of(rule));
        return definition;
    }

    private static List<Map<String, Object>> descriptors(String kind, TenureCsvMetadata.Section section) {
        return TenureCsvMetadata.DESCRIPTORS.stream()
                .filter(d -> d.kind().equals(kind) && d.section() == section)
                .map(d -> {
                    Map<String, Object> descriptor = new LinkedHashMap<>();
                    descriptor.put("path", d.path());
                    descriptor.put("displayName", d.displayName());
                    descriptor.put("description", d.description());
                    descriptor.put("x-descriptors", d.xDescriptors());
                    return descriptor;
                })
                .collect(Collectors.toList());
    }

    /**
     * Under OLM only: OLM mounts the webhook serving certificate into the deployment, and Quarkus
     * serves HTTPS on the webhook target port when given those files. Plain manifests carry no
     * webhook (the reconciler repeats its checks), so they need no certificate.
     */
    private static void wireWebhookTls(Map<String, Object> container) {
        List<Map<String, Object>> ports = list(container, "ports");
        if (ports.stream().noneMatch(p -> "https".equals(p.get("name")))) {
            Map<String, Object> https = new LinkedHashMap<>();
            https.put("containerPort", TenureCsvMetadata.WEBHOOK_TARGET_PORT);
            https.put("name", "https");
            https.put("protocol", "TCP");
            ports.add(https);
        }
        List<Map<String, Object>> env = list(container, "env");
        putEnv(env, "QUARKUS_HTTP_SSL_PORT", String.valueOf(TenureCsvMetadata.WEBHOOK_TARGET_PORT));
        putEnv(env, "QUARKUS_HTTP_SSL_CERTIFICATE_FILES", TenureCsvMetadata.OLM_WEBHOOK_CERT_DIR + "/tls.crt");
        putEnv(env, "QUARKUS_HTTP_SSL_CERTIFICATE_KEY_FILES", TenureCsvMetadata.OLM_WEBHOOK_CERT_DIR + "/tls.key");
    }

    private static void putEnv(List<Map<String, Object>> env, String name, String value) {
        env.removeIf(e -> name.equals(e.get("name")));
        Map<String, Object> variable = new LinkedHashMap<>();
        variable.put("name", name);
        variable.put("value", value);
        env.add(variable);
    }

    // --- Bundle extras and plain manifests -------------------------------------------------------

    /** Manifests OLM installs alongside the CSV: metrics Service, ServiceMonitor, PrometheusRule, dashboard. */
    static List<Map<String, Object>> bundleExtras(List<Map<String, Object>> resources, String dashboardJson) {
        List<Map<String, Object>> extras = new ArrayList<>();
        for (Map<String, Object> resource : resources) {
            String kind = (String) resource.get("kind");
            if ("Service".equals(kind) || MONITORING_KINDS.contains(kind)) {
                Map<String, Object> copy = deepCopy(resource);
                // OLM installs bundle objects into the operator's namespace, whatever it is.
                map(copy, "metadata").remove("namespace");
                extras.add(copy);
            }
        }
        Map<String, Object> dashboard = dashboardConfigMap(dashboardJson);
        map(dashboard, "metadata").remove("namespace");
        extras.add(dashboard);
        return extras;
    }

    /** A ConfigMap the Grafana dashboard sidecar (label grafana_dashboard=1) picks up. */
    static Map<String, Object> dashboardConfigMap(String dashboardJson) {
        Map<String, Object> metadata = new LinkedHashMap<>();
        metadata.put("name", NAME + "-dashboard");
        metadata.put("namespace", NAMESPACE);
        metadata.put("labels", new java.util.TreeMap<>(Map.of("app.kubernetes.io/name", NAME, "grafana_dashboard", "1")));
        Map<String, Object> configMap = new LinkedHashMap<>();
        configMap.put("apiVersion", "v1");
        configMap.put("kind", "ConfigMap");
        configMap.put("metadata", metadata);
        configMap.put("data", Map.of("tenure-dashboard.json", dashboardJson));
        return configMap;
    }

    /** The operator for clusters without OLM: Namespace, CRDs, then everything but monitoring kinds. */
    static List<Map<String, Object>> plainOperatorManifests(List<Map<String, Object>> crds,
            List<Map<String, Object>> resources) {
        List<Map<String, Object>> all = new ArrayList<>();
        Map<String, Object> namespace = new LinkedHashMap<>();
        namespace.put("apiVersion", "v1");
        namespace.put("kind", "Namespace");
        namespace.put("metadata", Map.of("name", NAMESPACE));
        all.add(namespace);
        all.addAll(crds);
        resources.stream().filter(r -> !MONITORING_KINDS.contains((String) r.get("kind"))).forEach(all::add);
        return all;
    }

    /** The PrometheusRule's groups as a plain Prometheus rules file (for promtool, or a Prometheus without the operator). */
    static Map<String, Object> plainRuleGroups(List<Map<String, Object>> resources) {
        Map<String, Object> rule = resources.stream().filter(r -> "PrometheusRule".equals(r.get("kind")))
                .findFirst().orElseThrow(() -> new IllegalStateException(
                        "no PrometheusRule in src/main/kubernetes/kubernetes.yml"));
        return Map.of("groups", map(rule, "spec").get("groups"));
    }

    private static void writeDeploy(Path deploy, List<Map<String, Object>> crds, List<Map<String, Object>> resources,
            String dashboard) throws IOException {
        Path monitoring = deploy.resolve("monitoring");
        Files.createDirectories(monitoring);
        Files.writeString(deploy.resolve(NAME + ".yaml"), toYaml(plainOperatorManifests(crds, resources)));
        for (String kind : List.of("ServiceMonitor", "PrometheusRule")) {
            List<Map<String, Object>> ofKind = resources.stream().filter(r -> kind.equals(r.get("kind"))).toList();
            Files.writeString(monitoring.resolve(kind.toLowerCase() + ".yaml"), toYaml(ofKind));
        }
        Files.writeString(monitoring.resolve("prometheus-rules.yaml"), toYaml(List.of(plainRuleGroups(resources))));
        Files.writeString(monitoring.resolve("grafana-dashboard.json"), dashboard);
        Files.writeString(monitoring.resolve("grafana-dashboard-configmap.yaml"),
                toYaml(List.of(dashboardConfigMap(dashboard))));
    }

    // --- Deterministic output -------------------------------------------------------------------

    /**
     * The generators emit one ClusterRole (and env var) per reconciler in hash order, which differs from
     * build to build; verify-generated needs the same bytes for the same code. Documents are ordered by
     * kind and name, env vars by name, and the rules of a CSV permission by their content: none of these
     * orders carries meaning for the API server or OLM.
     */
    static List<Map<String, Object>> canonical(List<Map<String, Object>> documents) {
        List<Map<String, Object>> sorted = new ArrayList<>(documents);
        sorted.sort(java.util.Comparator.comparing((Map<String, Object> d) -> String.valueOf(d.get("kind")))
                .thenComparing(d -> d.get("metadata") instanceof Map<?, ?> m ? String.valueOf(m.get("name")) : ""));
        sorted.forEach(d -> canonicalize(d, ""));
        return sorted;
    }

    @SuppressWarnings("unchecked")
    private static void canonicalize(Object node, String key) {
        if (node instanceof Map<?, ?> m) {
            m.forEach((k, v) -> canonicalize(v, String.valueOf(k)));
        } else if (node instanceof List<?> l) {
            l.forEach(v -> canonicalize(v, ""));
            boolean allMaps = !l.isEmpty() && l.stream().allMatch(v -> v instanceof Map);
            if (allMaps && key.equals("env")) {
                ((List<Map<String, Object>>) l).sort(java.util.Comparator.comparing(e -> String.valueOf(e.get("name"))));
            } else if (allMaps && key.equals("rules") && l.stream().allMatch(v -> ((Map<?, ?>) v).containsKey("verbs"))) {
                ((List<Map<String, Object>>) l).sort(java.util.Comparator.comparing(Object::toString));
            }
        }
    }

    // --- YAML ---------------------------------------------------------------------------------

    /** Parses a multi-document YAML stream into one map per non-empty document. */
    static List<Map<String, Object>> parseAll(String yaml) {
        List<Map<String, Object>> documents = new ArrayList<>();
        for (String document : yaml.split("(?m)^---\\s*$")) {
            if (document.lines().anyMatch(l -> !l.isBlank() && !l.stripLeading().startsWith("#"))) {
                @SuppressWarnings("unchecked")
                Map<String, Object> parsed = SERIALIZATION.unmarshal(document, Map.class);
                documents.add(parsed);
            }
        }
        return documents;
    }

    static String toYaml(List<Map<String, Object>> documents) {
        StringBuilder out = new StringBuilder();
        for (Map<String, Object> document : documents) {
            String yaml = SERIALIZATION.asYaml(document);
            out.append(yaml.startsWith("---") ? yaml : "---\n" + yaml);
            if (!yaml.endsWith("\n")) {
                out.append('\n');
            }
        }
        return out.toString();
    }

    private static List<Map<String, Object>> readCrds(Path kubernetesDir) throws IOException {
        try (Stream<Path> files = Files.list(kubernetesDir)) {
            return files.filter(f -> f.getFileName().toString().endsWith("-v1.yml")).sorted()
                    .map(f -> {
                        try {
                            return parseAll(Files.readString(f));
                        } catch (IOException e) {
                            throw new UncheckedIOException(e);
                        }
                    })
                    .flatMap(List::stream)
                    .filter(d -> "CustomResourceDefinition".equals(d.get("kind")))
                    .toList();
        }
    }

    /** The value at a path of map keys, or null where the path ends early. */
    @SuppressWarnings("unchecked")
    static <T> T at(Map<String, Object> root, String... keys) {
        Object value = root;
        for (String key : keys) {
            if (!(value instanceof Map<?, ?> m)) {
                return null;
            }
            value = m.get(key);
        }
        return (T) value;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Map<String, Object> parent, String key) {
        return (Map<String, Object>) parent.computeIfAbsent(key, k -> new LinkedHashMap<>());
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> list(Map<String, Object> parent, String key) {
        Object value = parent.get(key);
        if (!(value instanceof List)) {
            value = new ArrayList<>();
            parent.put(key, value);
        }
        return (List<Map<String, Object>>) value;
    }

    @SuppressWarnings("unchecked")
    private static <T> T deepCopy(T value) {
        if (value instanceof Map<?, ?> m) {
            Map<String, Object> copy = new LinkedHashMap<>();
            m.forEach((k, v) -> copy.put((String) k, deepCopy(v)));
            return (T) copy;
        }
        if (value instanceof List<?> l) {
            List<Object> copy = new ArrayList<>();
            l.forEach(v -> copy.add(deepCopy(v)));
            return (T) copy;
        }
        return value;
    }
}
