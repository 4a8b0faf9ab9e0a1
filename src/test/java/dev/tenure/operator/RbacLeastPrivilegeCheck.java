package dev.tenure.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.tenure.operator.GrantedPermissions.Permission;
import dev.tenure.testsupport.RecordedOperatorRequest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Least privilege, proven against the whole test suite: the RBAC the build generated (what users install: the
 * plain manifests of {@code target/deploy} and the OLM bundle's CSV, which {@code bin/sync-generated} copies into
 * {@code deploy/} and {@code olm-bundle/}) grants every request production code made to an emulated cluster, and
 * nothing else but the justified rows of {@link #UNUSED_BUT_NEEDED}; no wildcards.
 *
 * <p>Not a surefire {@code *Test}: the {@code rbac-least-privilege} execution runs it in {@code integration-test},
 * after every test recorded its requests (testsupport's OperatorRequestRecorder, {@code target/rbac-requests})
 * and after {@code package} wrote the manifests. On a run narrowed with {@code -Dtest=…} the recording is partial:
 * only "every request is granted" is checked then.
 *
 * <p>Attribution is by User-Agent (testsupport's RequestOrigin): the harness client, kubectl and workloads are left out,
 * every other client counts as the operator.
 */
class RbacLeastPrivilegeCheck {

    static final String OPERATOR_NAMESPACE = ManifestAssembly.NAMESPACE;
    static final String SERVICE_ACCOUNT = "tenure-operator";
    private static final Path TARGET = Path.of("target");
    private static final Path REQUESTS = Path.of(System.getProperty(
            "rbac-check.requests-dir", TARGET.resolve("rbac-requests").toString()));
    private static final boolean PARTIAL_RUN = Boolean.getBoolean("rbac-check.partial-run");

    private static final String CRD_APPLY = "%test applies the generated CRDs at start "
            + "(quarkus.operator-sdk.crd.apply=true); the packaged operator does not "
            + "(%prod.quarkus.operator-sdk.crd.apply=false) and gets its CRDs from OLM or deploy/";

    /** A (verb, group, resource) the check accepts without a recorded request, and why. */
    record Justified(String verb, String apiGroup, String resource, String reason) {
        boolean matches(Permission p) {
            return verb.equals(p.verb()) && apiGroup.equals(p.apiGroup()) && resource.equals(p.resource());
        }

        boolean matches(RecordedOperatorRequest r) {
            return r.isResourceRequest()
                    && verb.equals(r.verb())
                    && apiGroup.equals(r.apiGroup())
                    && resource.equals(r.resourceWithSubresource());
        }

        @Override
        public String toString() {
            return verb + " " + (apiGroup.isEmpty() ? "\"\"" : apiGroup) + " " + resource + " (" + reason + ")";
        }
    }

    /** Granted, never requested in the suite, and still needed; every row says why. Keep it short. */
    static final List<Justified> UNUSED_BUT_NEEDED = List.of(
            new Justified(
                    "create",
                    "authorization.k8s.io",
                    "subjectaccessreviews",
                    "the NodeMaintenance webhook's SubjectAccessReview for the requesting user; the emulated cluster"
                            + " serves none, so NodeMaintenanceReconcilerIT answers through RbacAuthorizer and"
                            + " SubjectAccessReviewsTest proves the request against fabric8's mock server"),
            new Justified(
                    "get",
                    "tenure.dev",
                    "nodemaintenancerollouts",
                    "JOSDK 5.1.5 removes a rollout's finalizer with ReconciliationDispatcher.conflictRetryingPatch,"
                            + " which re-reads the rollout with a GET (CustomResourceFacade.getResource) after a 409"
                            + " Conflict; no test makes that patch conflict"));

    /**
     * Requested in the suite, yet rightly not granted: only the test profile makes them. Each row names the
     * setting that keeps the shipped operator from making them ({@link #testProfileOnlyPremisesHold}).
     */
    static final List<Justified> TEST_PROFILE_ONLY = List.of(
            new Justified("create", "apiextensions.k8s.io", "customresourcedefinitions", CRD_APPLY),
            new Justified("update", "apiextensions.k8s.io", "customresourcedefinitions", CRD_APPLY),
            new Justified("patch", "apiextensions.k8s.io", "customresourcedefinitions", CRD_APPLY));

    /**
     * Requested in the suite and granted to every authenticated account by kube-apiserver's default {@code
     * system:basic-user} ClusterRole: the operator needs no grant of its own.
     */
    static final List<Justified> EVERY_ACCOUNT = List.of(new Justified(
            "create",
            "authorization.k8s.io",
            "selfsubjectaccessreviews",
            "system:basic-user: the surge's check whether the operator holds tenure-operator-surge (issue 51)"));

    /**
     * ClusterRoles shipped unbound in the plain manifests, which an admin binds to opt in to a feature: the operator
     * makes their requests only after a SelfSubjectAccessReview said they are granted, so they count as granted, and
     * each of their grants must be used by the suite like any other.
     */
    static final List<String> OPT_IN_ROLES = List.of("tenure-operator-surge");

    /** The rules of {@link #OPT_IN_ROLES} as if an admin bound them to the operator's account. */
    static GrantedPermissions optIn() {
        List<Map<String, Object>> documents = ManifestAssembly.parseAll(read(Source.PLAIN_MANIFESTS.path()));
        java.util.Set<GrantedPermissions.Permission> permissions = new java.util.LinkedHashSet<>();
        for (String role : OPT_IN_ROLES) {
            Map<String, Object> found = documents.stream()
                    .filter(d -> "ClusterRole".equals(d.get("kind"))
                            && role.equals(ManifestAssembly.at(d, "metadata", "name")))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("opt-in ClusterRole " + role + " not in the manifests"));
            permissions.addAll(GrantedPermissions.expand(
                    java.util.Objects.requireNonNullElse(ManifestAssembly.at(found, "rules"), List.of()),
                    "",
                    "ClusterRole " + role + " (opt-in)"));
        }
        return new GrantedPermissions(permissions);
    }

    /** The two ways users install the operator. */
    enum Source {
        PLAIN_MANIFESTS("target/deploy/tenure-operator.yaml") {
            @Override
            GrantedPermissions grants() {
                return GrantedPermissions.ofManifests(
                        ManifestAssembly.parseAll(read(path())), OPERATOR_NAMESPACE, SERVICE_ACCOUNT);
            }
        },
        OLM_BUNDLE("target/bundle/tenure-operator/manifests/tenure-operator.clusterserviceversion.yaml") {
            @Override
            GrantedPermissions grants() {
                return GrantedPermissions.ofCsv(
                        ManifestAssembly.parseAll(read(path())).get(0), OPERATOR_NAMESPACE, SERVICE_ACCOUNT);
            }
        };

        private final String file;

        Source(String file) {
            this.file = file;
        }

        Path path() {
            return Path.of(file);
        }

        abstract GrantedPermissions grants();
    }

    @ParameterizedTest
    @EnumSource(Source.class)
    void everyRequestTheOperatorMadeIsGranted(Source source) {
        GrantedPermissions granted = source.grants();
        GrantedPermissions optIn = optIn();
        List<RecordedOperatorRequest> requests = recordedRequests();
        Map<String, List<RecordedOperatorRequest>> missing = new LinkedHashMap<>();
        for (RecordedOperatorRequest r : requests) {
            if (!granted.grants(r)
                    && !optIn.grants(r)
                    && EVERY_ACCOUNT.stream().noneMatch(j -> j.matches(r))
                    && TEST_PROFILE_ONLY.stream().noneMatch(j -> j.matches(r))) {
                missing.computeIfAbsent(needed(r), k -> new ArrayList<>()).add(r);
            }
        }
        if (!missing.isEmpty()) {
            fail(source + " (" + source.path() + ") does not grant " + missing.size()
                    + " kind(s) of request the operator made during the tests; each would be a 403 in a real cluster."
                    + " Add the rule (an @RBACRule on the reconciler, or quarkus.kubernetes.rbac.* in"
                    + " application.properties), then `make bundle`:\n" + describe(missing));
        }
    }

    @ParameterizedTest
    @EnumSource(Source.class)
    void everyGrantIsUsedByTheOperatorOrJustified(Source source) {
        Assumptions.assumeFalse(
                PARTIAL_RUN,
                "a run narrowed with -Dtest records only part of what the operator"
                        + " calls; unused grants are checked on a full `./mvnw verify`");
        GrantedPermissions granted = source.grants();
        List<RecordedOperatorRequest> requests = recordedRequests();
        Set<String> unused = new TreeSet<>();
        for (Permission p : granted.permissions()) {
            boolean used = requests.stream().anyMatch(r -> GrantedPermissions.covers(p, r));
            if (!used && UNUSED_BUT_NEEDED.stream().noneMatch(j -> j.matches(p))) {
                unused.add("  - " + p);
            }
        }
        if (!unused.isEmpty()) {
            fail(source + " (" + source.path() + ") grants " + unused.size()
                    + " permission(s) no test made the operator use. Remove the rule, or — when the code needs it on"
                    + " paths the emulated cluster cannot reach — add a row with its reason to"
                    + " RbacLeastPrivilegeCheck.UNUSED_BUT_NEEDED:\n" + String.join("\n", unused));
        }
    }

    @Test
    void everyOptInGrantIsUsedByTheOperator() {
        Assumptions.assumeFalse(
                PARTIAL_RUN,
                "a run narrowed with -Dtest records only part of what the operator"
                        + " calls; unused grants are checked on a full `./mvnw verify`");
        List<RecordedOperatorRequest> requests = recordedRequests();
        assertThat(optIn().permissions())
                .as("opt-in grants no test made the operator use")
                .allMatch(p -> requests.stream().anyMatch(r -> GrantedPermissions.covers(p, r)));
        assertThat(optIn().permissions())
                .as("opt-in roles grant no wildcard")
                .noneMatch(p -> p.verb().equals("*")
                        || p.apiGroup().equals("*")
                        || p.resource().contains("*"));
    }

    @ParameterizedTest
    @EnumSource(Source.class)
    void noWildcards(Source source) {
        assertThat(source.grants().permissions())
                .as("%s grants no wildcard verb, group or resource", source)
                .noneMatch(p -> p.verb().equals("*")
                        || p.apiGroup().equals("*")
                        || p.resource().contains("*"));
    }

    @Test
    void bothInstallMethodsGrantTheSame() {
        assertThat(scopes(Source.OLM_BUNDLE.grants())).isEqualTo(scopes(Source.PLAIN_MANIFESTS.grants()));
    }

    @Test
    void everyJustifiedRowIsStillGranted() {
        GrantedPermissions granted = Source.PLAIN_MANIFESTS.grants();
        assertThat(UNUSED_BUT_NEEDED)
                .as("allow-list rows whose permission is no longer granted (delete the row)")
                .allMatch(j -> granted.permissions().stream().anyMatch(j::matches));
        assertThat(TEST_PROFILE_ONLY)
                .as("test-profile-only requests must stay ungranted")
                .noneMatch(j -> granted.permissions().stream().anyMatch(j::matches));
    }

    @Test
    void testProfileOnlyPremisesHold() {
        String properties = read(Path.of("src/main/resources/application.properties"));
        assertThat(properties)
                .as("the premise of the customresourcedefinitions rows of TEST_PROFILE_ONLY")
                .containsPattern("(?m)^%prod\\.quarkus\\.operator-sdk\\.crd\\.apply=false$");
    }

    // --- helpers -----------------------------------------------------------------------------

    /** Every distinct operator request of the run; fails a full run that recorded nothing (recorder off). */
    static List<RecordedOperatorRequest> recordedRequests() {
        List<Path> files;
        try (Stream<Path> list = Files.isDirectory(REQUESTS) ? Files.list(REQUESTS) : Stream.empty()) {
            files = list.filter(f -> f.toString().endsWith(".tsv")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (PARTIAL_RUN) {
            Assumptions.assumeFalse(files.isEmpty(), "no test of this narrowed run talked to an emulated cluster");
        }
        assertThat(files)
                .as(
                        "recorded operator requests in %s: a full test run writes them (surefire sets "
                                + "rbac-check.requests-dir; EmulatedCluster records through OperatorRequestRecorder)",
                        REQUESTS)
                .isNotEmpty();
        List<RecordedOperatorRequest> requests = new ArrayList<>();
        for (Path f : files) {
            read(f).lines()
                    .filter(l -> !l.isBlank())
                    .map(RecordedOperatorRequest::parse)
                    .forEach(requests::add);
        }
        return requests;
    }

    private static String needed(RecordedOperatorRequest r) {
        if (!r.isResourceRequest()) {
            return "nonResourceURLs " + r.nonResourcePath() + " verb " + r.verb();
        }
        return "verb " + r.verb() + " on " + r.resourceWithSubresource() + " in apiGroup \"" + r.apiGroup() + "\""
                + (r.namespace().isEmpty() ? " (cluster-wide)" : " (namespace " + r.namespace() + ")");
    }

    private static String describe(Map<String, List<RecordedOperatorRequest>> missing) {
        return missing.entrySet().stream()
                .map(e -> "  - " + e.getKey() + ", made by "
                        + e.getValue().stream()
                                .map(RecordedOperatorRequest::test)
                                .distinct()
                                .limit(3)
                                .collect(Collectors.joining(", "))
                        + " (User-Agent " + e.getValue().get(0).userAgent() + ")")
                .collect(Collectors.joining("\n"));
    }

    private static Set<String> scopes(GrantedPermissions granted) {
        return granted.permissions().stream()
                .map(p -> p.verb() + " " + p.apiGroup() + " " + p.resource() + " " + p.namespace())
                .collect(Collectors.toCollection(TreeSet::new));
    }

    static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file + " (run `./mvnw verify`: it is built in package)", e);
        }
    }
}
