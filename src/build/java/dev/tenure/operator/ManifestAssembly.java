package dev.tenure.operator;

import dev.tenure.maintenance.api.NodeMaintenance;
import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Build step (bound to {@code package}, after quarkus:build) that turns what quarkus-kubernetes and
 * the QOSDK bundle generator wrote into the artifacts we ship:
 * <ul>
 * <li>the OLM bundle, completed with what {@code @CSVMetadata} cannot express in QOSDK 7.2.3
 * (webhook definition, owned-CRD descriptors, the deployment's webhook TLS wiring) and with the
 * monitoring manifests OLM accepts in a bundle (metrics Service, ServiceMonitor, PrometheusRule,
 * Grafana dashboard ConfigMap);</li>
 * <li>RBAC without quarkus-operator-sdk's blanket rule on each reconciler's primary resource (every
 * verb on it, its status and finalizers): each reconciler declares what it calls with {@code @RBACRule},
 * primary resource included, and the RBAC least-privilege check holds the result to what the tests saw
 * the operator call;</li>
 * <li>CRDs whose printer columns come in the order their {@code @AdditionalPrinterColumn}s are declared
 * (the fabric8 crd-generator sorts them by JSON path, and has no ordering attribute);</li>
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
    static final String SUGGESTED_NAMESPACE_ANNOTATION = "operatorframework.io/suggested-namespace";
    private static final Set<String> MONITORING_KINDS = Set.of("ServiceMonitor", "PrometheusRule");
    private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
    /** Every custom resource class the operator owns: the source of its CRD's printer-column order. */
    static final List<Class<? extends HasMetadata>> CUSTOM_RESOURCES =
            List.of(NodeMaintenance.class, dev.tenure.rollout.api.NodeMaintenanceRollout.class);

    private ManifestAssembly() {}

    /** {@code args[0]}: the build directory ({@code target}); {@code args[1]}: the project directory. */
    public static void main(String[] args) throws IOException {
        Path target = Path.of(args.length > 0 ? args[0] : "target");
        Path project = Path.of(args.length > 1 ? args[1] : ".");
        Path kubernetesDir = target.resolve("kubernetes");
        List<Map<String, Object>> generatedResources = canonical(
                withReconcilerRolesMerged(parseAll(Files.readString(kubernetesDir.resolve("kubernetes.yml"))).stream()
                        .map(ManifestAssembly::withoutBlanketPrimaryResourceRules)
                        .toList()));
        List<Map<String, Object>> resources = generatedResources;
        List<Map<String, Object>> crds = readCrds(kubernetesDir).stream()
                .map(ManifestAssembly::printerColumnsInDeclaredOrder)
                .map(ManifestAssembly::refinedSchema)
                .toList();
        String dashboard = Files.readString(project.resolve("src/main/monitoring/tenure-dashboard.json"));
        Release release = Release.read(project.resolve("src/main/olm"));
        resources = withManagementServicePort(
                resources.stream().map(r -> withReleaseImage(r, release)).toList());

        List<Map<String, Object>> leaseGuard = parseAll(Files.readString(project.resolve(LEASE_GUARD_SOURCE)));
        writeDeploy(target.resolve("deploy"), crds, resources, leaseGuard, dashboard);

        Path manifests = target.resolve("bundle").resolve(NAME).resolve("manifests");
        Path csvFile = manifests.resolve(NAME + ".clusterserviceversion.yaml");
        // The generator writes a bundle only once a reconciler exists.
        if (Files.exists(csvFile)) {
            List<Map<String, Object>> bundledCrds = new ArrayList<>();
            try (Stream<Path> files = Files.list(manifests)) {
                for (Path crdFile : files.filter(f -> f.getFileName().toString().endsWith(".crd.yml"))
                        .sorted()
                        .toList()) {
                    String generated = Files.readString(crdFile);
                    List<Map<String, Object>> ordered = parseAll(generated).stream()
                            .map(ManifestAssembly::printerColumnsInDeclaredOrder)
                            .map(ManifestAssembly::refinedSchema)
                            .toList();
                    bundledCrds.addAll(ordered);
                    // The generator's header comment stays ("Generated by Fabric8 CRDGenerator, …").
                    String header = generated
                            .lines()
                            .takeWhile(l -> l.startsWith("#"))
                            .map(l -> l + "\n")
                            .collect(Collectors.joining());
                    Files.writeString(crdFile, header + toYaml(ordered));
                }
            }
            Map<String, Object> csv =
                    canonical(parseAll(Files.readString(csvFile))).get(0);
            Map<String, Object> released = release.applyTo(completeCsv(csv));
            Files.writeString(csvFile, toYaml(List.of(released)));
            Path catalog = target.resolve("catalog").resolve(NAME);
            Files.createDirectories(catalog);
            Path committedCatalog = project.resolve("catalog").resolve(NAME).resolve("catalog.yaml");
            Files.writeString(
                    catalog.resolve("catalog.yaml"),
                    toYaml(Catalog.of(
                            released,
                            bundledCrds,
                            release,
                            channels(Files.readString(
                                    manifests.resolveSibling("metadata").resolve("annotations.yaml"))),
                            Files.exists(committedCatalog)
                                    ? parseAll(Files.readString(committedCatalog))
                                    : List.of())));
            // Extras are ours alone (the generator writes *.crd.yml and the CSV): none left from an earlier build.
            try (Stream<Path> files = Files.list(manifests)) {
                for (Path stale : files.filter(f -> f.getFileName().toString().startsWith(NAME + "-"))
                        .toList()) {
                    Files.delete(stale);
                }
            }
            for (Map<String, Object> extra : bundleExtras(resources)) {
                String kind = ((String) extra.get("kind")).toLowerCase(Locale.ROOT);
                Files.writeString(manifests.resolve(NAME + "-" + kind + ".yaml"), toYaml(List.of(extra)));
            }
        }
    }

    /** The Deployment with the operator container's image tagged with the release version. */
    static Map<String, Object> withReleaseImage(Map<String, Object> resource, Release release) {
        if (!"Deployment".equals(resource.get("kind"))) {
            return resource;
        }
        Map<String, Object> copy = deepCopy(resource);
        List<Map<String, Object>> containers =
                Objects.requireNonNullElse(at(copy, "spec", "template", "spec", "containers"), List.of());
        containers.stream()
                .filter(c -> NAME.equals(c.get("name")))
                .forEach(c -> c.put("image", release.image(String.valueOf(c.get("image")))));
        return copy;
    }

    /**
     * The resources with the operator container's {@code management} port (metrics and health, on the Quarkus
     * management interface) exposed by the operator's Service under the same name, for the ServiceMonitor;
     * quarkus-kubernetes puts only the main HTTP port in the Service. Unchanged without a management port.
     */
    static List<Map<String, Object>> withManagementServicePort(List<Map<String, Object>> resources) {
        Object port = resources.stream()
                .filter(r -> "Deployment".equals(r.get("kind")))
                .flatMap(d -> Objects.requireNonNullElse(
                        ManifestAssembly.<List<Map<String, Object>>>at(d, "spec", "template", "spec", "containers"),
                        List.<Map<String, Object>>of())
                        .stream())
                .filter(c -> NAME.equals(c.get("name")))
                .flatMap(c -> Objects.requireNonNullElse(
                        ManifestAssembly.<List<Map<String, Object>>>at(c, "ports"), List.<Map<String, Object>>of())
                        .stream())
                .filter(p -> "management".equals(p.get("name")))
                .map(p -> p.get("containerPort"))
                .findFirst()
                .orElse(null);
        if (port == null) {
            return resources;
        }
        return resources.stream()
                .map(r -> {
                    if (!"Service".equals(r.get("kind")) || !NAME.equals(at(r, "metadata", "name"))) {
                        return r;
                    }
                    Map<String, Object> service = deepCopy(r);
                    List<Map<String, Object>> ports = list(map(service, "spec"), "ports");
                    ports.removeIf(p -> "management".equals(p.get("name")));
                    Map<String, Object> management = new LinkedHashMap<>();
                    management.put("name", "management");
                    management.put("port", port);
                    management.put("protocol", "TCP");
                    management.put("targetPort", port);
                    ports.add(management);
                    return service;
                })
                .toList();
    }

    /** The bundle's channels, default first, from its metadata/annotations.yaml. */
    static List<String> channels(String annotationsYaml) {
        Map<String, Object> annotations = at(parseAll(annotationsYaml).get(0), "annotations");
        String all = String.valueOf(annotations.get("operators.operatorframework.io.bundle.channels.v1"));
        String preferred = String.valueOf(annotations.get("operators.operatorframework.io.bundle.channel.default.v1"));
        List<String> channels = new ArrayList<>(List.of(all.split(",")));
        channels.removeIf(String::isBlank);
        channels.remove(preferred);
        channels.add(0, preferred);
        return channels;
    }

    // --- RBAC ----------------------------------------------------------------------------------

    /** The verbs quarkus-operator-sdk 7.2.3 grants on a reconciler's primary resource (RBACVerbs.ALL_COMMON_VERBS). */
    static final Set<String> BLANKET_PRIMARY_RESOURCE_VERBS =
            Set.of("get", "list", "watch", "patch", "update", "create", "delete");

    /** A (Cluster)Role without the blanket primary-resource rules; any other document unchanged. */
    static Map<String, Object> withoutBlanketPrimaryResourceRules(Map<String, Object> document) {
        if (!Set.of("ClusterRole", "Role").contains(String.valueOf(document.get("kind")))
                || !(document.get("rules") instanceof List<?>)) {
            return document;
        }
        Map<String, Object> role = deepCopy(document);
        role.put("rules", withoutBlanketPrimaryResourceRules(list(role, "rules")));
        return role;
    }

    /**
     * The rules minus the one quarkus-operator-sdk adds for a reconciler's primary resource, recognised by
     * what only it writes: every common verb on a {@code <plural>/finalizers} subresource. The operator calls
     * no finalizers subresource (finalizers are patched on the resource itself; no owner reference it sets
     * blocks deletion), and what it calls on its primary resources is in the reconcilers' {@code @RBACRule}s.
     */
    static List<Map<String, Object>> withoutBlanketPrimaryResourceRules(List<Map<String, Object>> rules) {
        return rules.stream()
                .filter(rule -> {
                    List<Object> resources = Objects.requireNonNullElse(at(rule, "resources"), List.of());
                    List<Object> verbs = Objects.requireNonNullElse(at(rule, "verbs"), List.of());
                    boolean onFinalizers =
                            resources.stream().anyMatch(r -> String.valueOf(r).endsWith("/finalizers"));
                    return !(onFinalizers
                            && verbs.stream()
                                    .map(String::valueOf)
                                    .collect(Collectors.toSet())
                                    .containsAll(BLANKET_PRIMARY_RESOURCE_VERBS));
                })
                .map(ManifestAssembly::deepCopy)
                .collect(Collectors.toList());
    }

    /** The one ClusterRole (and binding) the maintenance reconcilers' rules are merged into. */
    static final String MAINTENANCE_ROLE = "tenure-maintenance";
    /** quarkus-operator-sdk names a reconciler's generated ClusterRole and binding with these suffixes. */
    private static final String RECONCILER_ROLE_SUFFIX = "-cluster-role";

    private static final String RECONCILER_BINDING_SUFFIX = "-cluster-role-binding";

    /**
     * The resources with quarkus-operator-sdk's per-reconciler ClusterRoles ({@code <reconciler>-cluster-role},
     * each repeating the drain's rules) replaced by one {@value #MAINTENANCE_ROLE} ClusterRole holding their
     * merged rules, bound once to the operator's ServiceAccount. Unchanged without such roles.
     */
    static List<Map<String, Object>> withReconcilerRolesMerged(List<Map<String, Object>> resources) {
        List<Map<String, Object>> roles = resources.stream()
                .filter(r -> isKindWithNameSuffix(r, "ClusterRole", RECONCILER_ROLE_SUFFIX))
                .toList();
        List<Map<String, Object>> bindings = resources.stream()
                .filter(r -> isKindWithNameSuffix(r, "ClusterRoleBinding", RECONCILER_BINDING_SUFFIX))
                .toList();
        if (roles.isEmpty()) {
            return resources;
        }
        Map<String, Object> role = new LinkedHashMap<>();
        role.put("apiVersion", "rbac.authorization.k8s.io/v1");
        role.put("kind", "ClusterRole");
        role.put("metadata", new LinkedHashMap<>(Map.of("name", MAINTENANCE_ROLE)));
        role.put(
                "rules",
                mergedRules(
                        roles.stream().flatMap(r -> list(r, "rules").stream()).toList()));
        List<Object> subjects = bindings.stream()
                .flatMap(b -> list(b, "subjects").stream())
                .distinct()
                .map(s -> (Object) s)
                .toList();
        Map<String, Object> binding = new LinkedHashMap<>();
        binding.put("apiVersion", "rbac.authorization.k8s.io/v1");
        binding.put("kind", "ClusterRoleBinding");
        binding.put("metadata", new LinkedHashMap<>(Map.of("name", MAINTENANCE_ROLE)));
        // Map.of iterates in a per-JVM random order; the manifests must come out byte-identical on every build.
        Map<String, Object> roleRef = new LinkedHashMap<>();
        roleRef.put("kind", "ClusterRole");
        roleRef.put("apiGroup", "rbac.authorization.k8s.io");
        roleRef.put("name", MAINTENANCE_ROLE);
        binding.put("roleRef", roleRef);
        binding.put("subjects", subjects);
        List<Map<String, Object>> merged = new ArrayList<>(resources);
        merged.removeAll(roles);
        merged.removeAll(bindings);
        merged.add(role);
        merged.add(binding);
        return merged;
    }

    private static boolean isKindWithNameSuffix(Map<String, Object> resource, String kind, String suffix) {
        return kind.equals(resource.get("kind"))
                && String.valueOf(ManifestAssembly.<Object>at(resource, "metadata", "name"))
                        .endsWith(suffix);
    }

    /** Verbs in kubectl's order ({@code kubectl describe clusterrole}); others after them, alphabetically. */
    private static final List<String> VERB_ORDER =
            List.of("get", "list", "watch", "create", "update", "patch", "delete", "deletecollection");

    /**
     * The rules with those on the same (apiGroups, resources, resourceNames, nonResourceURLs) merged into one
     * rule with the union of their verbs: the grants are unchanged, each resource is listed once.
     */
    static List<Map<String, Object>> mergedRules(List<Map<String, Object>> rules) {
        Map<List<Object>, Map<String, Object>> byTarget = new LinkedHashMap<>();
        for (Map<String, Object> rule : rules) {
            List<Object> target = java.util.Arrays.asList(
                    rule.get("apiGroups"),
                    rule.get("resources"),
                    rule.get("resourceNames"),
                    rule.get("nonResourceURLs"));
            Map<String, Object> into = byTarget.computeIfAbsent(target, t -> {
                Map<String, Object> copy = deepCopy(rule);
                copy.put("verbs", new ArrayList<>());
                return copy;
            });
            List<Object> verbs = at(into, "verbs");
            for (Object verb :
                    Objects.requireNonNullElse(ManifestAssembly.<List<Object>>at(rule, "verbs"), List.of())) {
                if (!verbs.contains(verb)) {
                    verbs.add(verb);
                }
            }
        }
        java.util.Comparator<Object> verbOrder = java.util.Comparator.comparingInt(
                        (Object v) -> VERB_ORDER.contains(v) ? VERB_ORDER.indexOf(v) : VERB_ORDER.size())
                .thenComparing(String::valueOf);
        byTarget.values()
                .forEach(
                        rule -> ManifestAssembly.<List<Object>>at(rule, "verbs").sort(verbOrder));
        return new ArrayList<>(byTarget.values());
    }

    // --- CRDs ----------------------------------------------------------------------------------

    /**
     * The CRD with each version's printer columns in the order the custom resource class declares its
     * {@code @AdditionalPrinterColumn}s (Node, Phase, Progress, Reason, Age, as NodeMaintenance declares them), instead of the
     * generator's order (by JSON path). Fails on a CRD of a class missing from {@link #CUSTOM_RESOURCES}.
     */
    /** RFC 3339 timestamps in the NodeMaintenance status: schema paths under status.properties. */
    static final List<List<String>> STATUS_TIMESTAMPS = List.of(
            List.of("lastUpdate"),
            List.of("conditions", "items", "properties", "lastTransitionTime"),
            List.of("lease", "properties", "acquireTime"),
            List.of("lease", "properties", "renewTime"),
            List.of("lease", "properties", "expireTime"));

    /**
     * What the CRD generator cannot say from annotations: status.conditions is a list map keyed by type whose
     * items need type and status (the metav1.Condition convention, so a merge never duplicates a condition), and
     * the status timestamps are date-time strings. Other CRDs pass unchanged; applying it twice changes nothing.
     */
    static Map<String, Object> refinedSchema(Map<String, Object> generatedCrd) {
        if (!"NodeMaintenance".equals(at(generatedCrd, "spec", "names", "kind"))) {
            return generatedCrd;
        }
        Map<String, Object> crd = deepCopy(generatedCrd);
        for (Map<String, Object> version : list(map(crd, "spec"), "versions")) {
            Map<String, Object> status = at(version, "schema", "openAPIV3Schema", "properties", "status", "properties");
            Map<String, Object> conditions = map(status, "conditions");
            conditions.put("x-kubernetes-list-type", "map");
            conditions.put("x-kubernetes-list-map-keys", List.of("type"));
            map(conditions, "items").put("required", List.of("type", "status"));
            for (List<String> path : STATUS_TIMESTAMPS) {
                Map<String, Object> node = status;
                for (String key : path) {
                    node = map(node, key);
                }
                node.put("format", "date-time");
            }
        }
        return crd;
    }

    static Map<String, Object> printerColumnsInDeclaredOrder(Map<String, Object> generatedCrd) {
        String kind = at(generatedCrd, "spec", "names", "kind");
        Class<? extends HasMetadata> type = CUSTOM_RESOURCES.stream()
                .filter(c -> HasMetadata.getKind(c).equals(kind))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("CRD of kind " + kind
                        + " has no class in ManifestAssembly.CUSTOM_RESOURCES (needed for its printer-column order)"));
        return printerColumnsInOrder(
                generatedCrd,
                Stream.of(type.getAnnotationsByType(AdditionalPrinterColumn.class))
                        .map(AdditionalPrinterColumn::name)
                        .toList());
    }

    /** The CRD with printer columns named in {@code names} first, in that order; others keep theirs, after. */
    static Map<String, Object> printerColumnsInOrder(Map<String, Object> generatedCrd, List<String> names) {
        Map<String, Object> crd = deepCopy(generatedCrd);
        List<Map<String, Object>> versions = Objects.requireNonNullElse(at(crd, "spec", "versions"), List.of());
        for (Map<String, Object> version : versions) {
            List<Map<String, Object>> columns = at(version, "additionalPrinterColumns");
            if (columns != null) {
                List<Map<String, Object>> sorted = new ArrayList<>(columns);
                sorted.sort(Comparator.comparingInt(c -> {
                    int i = names.indexOf(String.valueOf(c.get("name")));
                    return i < 0 ? names.size() : i;
                }));
                version.put("additionalPrinterColumns", sorted);
            }
        }
        return crd;
    }

    // --- CSV -----------------------------------------------------------------------------------

    /** The CSV with webhook definition, owned-CRD descriptions and webhook TLS wiring added. */
    static Map<String, Object> completeCsv(Map<String, Object> generated) {
        Map<String, Object> csv = deepCopy(generated);
        Map<String, Object> spec = map(csv, "spec");
        for (String key : List.of("clusterPermissions", "permissions")) {
            List<Map<String, Object>> permissions =
                    Objects.requireNonNullElse(at(spec, "install", "spec", key), List.of());
            for (Map<String, Object> permission : permissions) {
                permission.put("rules", mergedRules(withoutBlanketPrimaryResourceRules(list(permission, "rules"))));
            }
        }
        spec.put(
                "webhookdefinitions",
                List.of(
                        webhookDefinition(TenureCsvMetadata.WEBHOOK),
                        webhookDefinition(TenureCsvMetadata.ROLLOUT_WEBHOOK)));
        // The console proposes (and creates) this namespace instead of the shared one of AllNamespaces operators.
        map(map(csv, "metadata"), "annotations").put(SUGGESTED_NAMESPACE_ANNOTATION, NAMESPACE);
        Map<String, Object> labels = map(map(csv, "metadata"), "labels");
        new java.util.TreeMap<>(TenureCsvMetadata.PLATFORM_LABELS).forEach(labels::put);

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
        // The webhook only over TLS: no AdmissionReview over plain HTTP on 8080 (metrics and probes are
        // on the management interface, 9000).
        putEnv(env, "QUARKUS_HTTP_INSECURE_REQUESTS", "disabled");
    }

    private static void putEnv(List<Map<String, Object>> env, String name, String value) {
        env.removeIf(e -> name.equals(e.get("name")));
        Map<String, Object> variable = new LinkedHashMap<>();
        variable.put("name", name);
        variable.put("value", value);
        env.add(variable);
    }

    // --- Bundle extras and plain manifests -------------------------------------------------------

    /**
     * Manifests OLM installs alongside the CSV: the metrics Service (its management port only) and the operator's
     * PodDisruptionBudget.
     */
    static List<Map<String, Object>> bundleExtras(List<Map<String, Object>> resources) {
        List<Map<String, Object>> extras = new ArrayList<>();
        for (Map<String, Object> resource : resources) {
            String kind = (String) resource.get("kind");
            if (Set.of("Service", "PodDisruptionBudget").contains(kind)) {
                Map<String, Object> copy = deepCopy(resource);
                // OLM installs bundle objects into the operator's namespace, whatever it is.
                map(copy, "metadata").remove("namespace");
                List<Map<String, Object>> ports = at(copy, "spec", "ports");
                if ("Service".equals(kind) && ports != null) {
                    // Under OLM the main interface serves HTTPS only (insecure requests disabled, wireWebhookTls):
                    // a port onto 8080 would lead nowhere. OLM makes the webhook its own Service.
                    ports.removeIf(p -> "http".equals(p.get("name")));
                }
                extras.add(copy);
            }
        }
        return extras;
    }

    /**
     * The resource without {@code metadata.namespace}: the monitoring manifests go wherever the operator runs
     * ({@code kubectl apply -n <operator namespace>}; OpenShift's OLM installs into openshift-operators), and a
     * namespace in the file would make kubectl refuse any other.
     */
    static Map<String, Object> withoutNamespace(Map<String, Object> resource) {
        Map<String, Object> copy = deepCopy(resource);
        map(copy, "metadata").remove("namespace");
        return copy;
    }

    /** A ConfigMap the Grafana dashboard sidecar (label grafana_dashboard=1) picks up, in the namespace applied to. */
    static Map<String, Object> dashboardConfigMap(String dashboardJson) {
        Map<String, Object> metadata = new LinkedHashMap<>();
        metadata.put("name", NAME + "-dashboard");
        metadata.put(
                "labels", new java.util.TreeMap<>(Map.of("app.kubernetes.io/name", NAME, "grafana_dashboard", "1")));
        Map<String, Object> configMap = new LinkedHashMap<>();
        configMap.put("apiVersion", "v1");
        configMap.put("kind", "ConfigMap");
        configMap.put("metadata", metadata);
        configMap.put("data", Map.of("tenure-dashboard.json", dashboardJson));
        return configMap;
    }

    /** The operator for clusters without OLM: Namespace, CRDs, then everything but monitoring kinds. */
    static List<Map<String, Object>> plainOperatorManifests(
            List<Map<String, Object>> crds, List<Map<String, Object>> resources) {
        List<Map<String, Object>> all = new ArrayList<>();
        Map<String, Object> namespace = new LinkedHashMap<>();
        namespace.put("apiVersion", "v1");
        namespace.put("kind", "Namespace");
        namespace.put("metadata", Map.of("name", NAMESPACE));
        all.add(namespace);
        all.addAll(crds);
        resources.stream()
                .filter(r -> !MONITORING_KINDS.contains((String) r.get("kind")))
                .forEach(all::add);
        return all;
    }

    /** The PrometheusRule's groups as a plain Prometheus rules file (for promtool, or a Prometheus without the operator). */
    static Map<String, Object> plainRuleGroups(List<Map<String, Object>> resources) {
        Map<String, Object> rule = resources.stream()
                .filter(r -> "PrometheusRule".equals(r.get("kind")))
                .findFirst()
                .orElseThrow(
                        () -> new IllegalStateException("no PrometheusRule in src/main/kubernetes/kubernetes.yml"));
        return Map.of("groups", map(rule, "spec").get("groups"));
    }

    /**
     * The ValidatingAdmissionPolicy (and binding) bounding the operator's cluster-wide Lease write. OLM bundles
     * cannot carry one, so it is shipped in deploy/: inside the plain manifests, and alone as
     * {@value #LEASE_GUARD_FILE} for OLM installs.
     */
    static final String LEASE_GUARD_SOURCE = "src/main/kubernetes/policies/lease-guard.yaml";

    static final String LEASE_GUARD_FILE = "lease-guard.yaml";

    private static void writeDeploy(
            Path deploy,
            List<Map<String, Object>> crds,
            List<Map<String, Object>> resources,
            List<Map<String, Object>> leaseGuard,
            String dashboard)
            throws IOException {
        Path monitoring = deploy.resolve("monitoring");
        Files.createDirectories(monitoring);
        List<Map<String, Object>> plain = new ArrayList<>(plainOperatorManifests(crds, resources));
        plain.addAll(leaseGuard);
        Files.writeString(deploy.resolve(NAME + ".yaml"), toYaml(plain));
        Files.writeString(deploy.resolve(LEASE_GUARD_FILE), toYaml(leaseGuard));
        for (String kind : List.of("ServiceMonitor", "PrometheusRule")) {
            List<Map<String, Object>> ofKind = resources.stream()
                    .filter(r -> kind.equals(r.get("kind")))
                    .map(ManifestAssembly::withoutNamespace)
                    .toList();
            Files.writeString(monitoring.resolve(kind.toLowerCase(Locale.ROOT) + ".yaml"), toYaml(ofKind));
        }
        Files.writeString(monitoring.resolve("prometheus-rules.yaml"), toYaml(List.of(plainRuleGroups(resources))));
        Files.writeString(monitoring.resolve("grafana-dashboard.json"), dashboard);
        Files.writeString(
                monitoring.resolve("grafana-dashboard-configmap.yaml"), toYaml(List.of(dashboardConfigMap(dashboard))));
    }

    // --- Deterministic output -------------------------------------------------------------------

    /**
     * The generators emit one ClusterRole (and env var) per reconciler in hash order, which differs from
     * build to build; verify-generated needs the same bytes for the same code. Documents are ordered by
     * kind and name, env vars and ports by name, and the rules of a CSV permission by their content: none of
     * these orders carries meaning for the API server or OLM. (quarkus-kubernetes lists the container's ports
     * in hash order too: a CI run once got {@code http} before {@code management}.)
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
            if (allMaps && (key.equals("env") || key.equals("ports"))) {
                ((List<Map<String, Object>>) l)
                        .sort(java.util.Comparator.comparing(e -> String.valueOf(e.get("name"))));
            } else if (allMaps
                    && key.equals("rules")
                    && l.stream().allMatch(v -> ((Map<?, ?>) v).containsKey("verbs"))) {
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

    /** One manifest as compact JSON, keys in the map's order (deterministic for the same input). */
    static String toJson(Map<String, Object> document) {
        return SERIALIZATION.asJson(document);
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
            return files.filter(f -> f.getFileName().toString().endsWith("-v1.yml"))
                    .sorted()
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
    // a YAML path lookup: the caller names the type it expects (TypeParameterUnusedInFormals), unchecked by nature
    @SuppressWarnings({"unchecked", "TypeParameterUnusedInFormals"})
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
