package dev.tenure.maintenance.door;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.maintenance.admission.AdmissionCaches;
import dev.tenure.maintenance.admission.MaintenanceLimits;
import dev.tenure.maintenance.admission.NodeMaintenanceWebhook;
import dev.tenure.maintenance.admission.SubjectAccessReviews;
import dev.tenure.maintenance.api.DrainSpec;
import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.NodeMaintenanceSpec;
import dev.tenure.maintenance.api.NodeMaintenanceStatus;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.machine.MaintenanceEvents;
import dev.tenure.maintenance.machine.NodeMarks;
import dev.tenure.testsupport.ApiRequest;
import dev.tenure.testsupport.Conflicts;
import dev.tenure.testsupport.EmulatedCluster;
import dev.tenure.testsupport.EmulatedClusterResource;
import dev.tenure.testsupport.EndToEnd;
import dev.tenure.testsupport.RbacAuthorizer;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.authentication.UserInfo;
import io.fabric8.kubernetes.api.model.authorization.v1.ResourceAttributes;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusMock;
import io.quarkus.test.junit.QuarkusTest;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The NodeMaintenance front door end to end: operator (QOSDK) + emulated API server. */
@QuarkusTest
@QuarkusTestResource(EmulatedClusterResource.class)
@EndToEnd
class NodeMaintenanceReconcilerIT {

    static final Duration WAIT = Duration.ofSeconds(30);

    @TestHTTPResource("/validate-nodemaintenance")
    URL webhook;

    EmulatedCluster cluster() {
        return EmulatedClusterResource.cluster();
    }

    /**
     * The emulated cluster serves no SubjectAccessReviews: the test supplies the answers, from the RBAC objects it
     * seeds into the emulated cluster ({@link RbacAuthorizer}), behind the webhook's review port.
     */
    @BeforeEach
    void answerSubjectAccessReviewsFromSeededRbac() {
        RbacAuthorizer rbac = new RbacAuthorizer(client());
        QuarkusMock.installMockForType(
                new SubjectAccessReviews(null) {
                    @Override
                    public boolean allowed(UserInfo user, ResourceAttributes attributes) {
                        return rbac.allowed(user, attributes);
                    }
                },
                SubjectAccessReviews.class);
        // A node admin, and a user holding what a cluster-wide `edit` binding gives (pods and evictions, and the
        // NodeMaintenance rights OLM aggregates into edit) but no right on Nodes.
        clusterRole(
                "test-node-admin",
                rule("", "nodes", "get", "patch"),
                rule("", "pods/eviction", "create"),
                rule("", "pods", "get", "list", "delete"));
        clusterRole(
                "test-edit",
                rule("", "pods", "get", "list", "create", "update", "patch", "delete"),
                rule("", "pods/eviction", "create"),
                rule("tenure.dev", "nodemaintenances", "get", "list", "create", "update", "patch", "delete"));
        bind("test-node-admin", NODE_ADMIN);
        bind("test-edit", EDIT_USER);
    }

    static final String NODE_ADMIN = "ada";
    static final String EDIT_USER = "eddie";

    static io.fabric8.kubernetes.api.model.rbac.PolicyRule rule(String group, String resource, String... verbs) {
        return new PolicyRuleBuilder()
                .withApiGroups(group)
                .withResources(resource)
                .withVerbs(verbs)
                .build();
    }

    void clusterRole(String name, io.fabric8.kubernetes.api.model.rbac.PolicyRule... rules) {
        client().rbac()
                .clusterRoles()
                .resource(new ClusterRoleBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .endMetadata()
                        .withRules(rules)
                        .build())
                .createOr(r -> r.update());
    }

    void bind(String role, String user) {
        client().rbac()
                .clusterRoleBindings()
                .resource(new ClusterRoleBindingBuilder()
                        .withNewMetadata()
                        .withName(role + "-" + user)
                        .endMetadata()
                        .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", role)
                        .addNewSubject()
                        .withApiGroup("rbac.authorization.k8s.io")
                        .withKind("User")
                        .withName(user)
                        .endSubject()
                        .build())
                .createOr(r -> r.update());
    }

    KubernetesClient client() {
        return cluster().client();
    }

    NodeMaintenance create(String name, String node, Consumer<NodeMaintenanceSpec> edit) {
        NodeMaintenanceSpec spec = new NodeMaintenanceSpec(node, "test " + name);
        edit.accept(spec);
        return client().resource(new NodeMaintenance(name, spec)).create();
    }

    NodeMaintenance get(String name) {
        return client().resources(NodeMaintenance.class).withName(name).get();
    }

    Phase phaseOf(String name) {
        NodeMaintenance nm = get(name);
        return nm == null || nm.getStatus() == null ? null : nm.getStatus().getPhase();
    }

    void awaitPhase(String name, Phase phase) {
        await().atMost(WAIT).until(() -> phaseOf(name) == phase);
    }

    List<String> eventReasons(String involvedName) {
        return client().v1().events().inNamespace("default").list().getItems().stream()
                .filter(e -> involvedName.equals(e.getInvolvedObject().getName()))
                .map(Event::getReason)
                .toList();
    }

    long podsOn(String node) {
        return client().pods().inAnyNamespace().list().getItems().stream()
                .filter(p -> node.equals(p.getSpec().getNodeName()))
                .count();
    }

    @Test
    void lifecycleFromCreateToDelete() {
        cluster().seed().node("life-1").role("worker").create();
        cluster().seed().node("life-2").role("worker").create();
        cluster()
                .seed()
                .deployment("life")
                .namespace("life")
                .replicas(4)
                .onNodes("life-1", "life-2")
                .create();

        create("life", "life-1", s -> {});
        awaitPhase("life", Phase.Succeeded);

        NodeMaintenanceStatus status = get("life").getStatus();
        assertThat(status.getDrainProgress()).isEqualTo(100);
        assertThat(status.getEvictionPods()).isEqualTo(2);
        assertThat(status.getConditions())
                .allSatisfy(c -> assertThat(c.getStatus()).isEqualTo("True"));
        assertThat(status.getLease().getHolderIdentity()).startsWith("tenure/"); // tenure/<instance>
        assertThat(podsOn("life-1")).isZero();
        assertThat(podsOn("life-2")).isEqualTo(2);
        assertThat(cluster()
                        .requests()
                        .count(r -> r.is("list", "pods")
                                && "spec.nodeName=life-1".equals(r.query().get("fieldSelector"))))
                .isPositive();
        assertThat(client().nodes().withName("life-1").get().getSpec().getUnschedulable())
                .isTrue();
        await().atMost(WAIT)
                .until(() -> eventReasons("life")
                        .containsAll(List.of("BeginMaintenance", "Cordoned", "SucceedMaintenance")));
        assertThat(eventReasons("life-1")).contains("Cordoned");

        client().resources(NodeMaintenance.class).withName("life").delete();
        await().atMost(WAIT).until(() -> get("life") == null);
        Node node = client().nodes().withName("life-1").get();
        assertThat(node.getSpec().getUnschedulable()).isNotEqualTo(Boolean.TRUE);
        assertThat(node.getSpec().getTaints()).isEmpty();
        assertThat(node.getStatus().getConditions())
                .extracting(NodeCondition::getType)
                .doesNotContain(NodeMarks.CONDITION_TYPE);
        assertThat(client().leases()
                        .inNamespace("tenure-system")
                        .withName("node-life-1")
                        .get()
                        .getSpec()
                        .getHolderIdentity())
                .isNull();
        await().atMost(WAIT)
                .until(() -> eventReasons("life").containsAll(List.of("UncordonNode", "RemovedMaintenance")));
    }

    @Test
    void deletingMidDrainStopsEvictingAndRestoresTheNode() {
        cluster().seed().node("mid-1").role("worker").create();
        cluster()
                .seed()
                .deployment("mid")
                .namespace("mid")
                .replicas(2)
                .onNodes("mid-1")
                .create();
        cluster()
                .seed()
                .pdb("mid")
                .namespace("mid")
                .selector("app", "mid")
                .minAvailable(2)
                .create();

        create("mid", "mid-1", s -> {
            s.setDrain(new DrainSpec());
            s.getDrain().setEvictionRetryDelay("200ms");
        });
        await().atMost(WAIT).until(() -> {
            // one read per look: two reads may see two versions of the object
            NodeMaintenance seen = get("mid");
            return seen.getStatus() != null
                    && seen.getStatus().getPendingPods() != null
                    && eventReasons("mid").contains("EvictionBlocked");
        });
        assertThat(phaseOf("mid")).isEqualTo(Phase.Running);
        // Repeated refusals are one Event with a count, not one Event per retry.
        await().atMost(WAIT)
                .until(() -> client().v1().events().inNamespace("default").list().getItems().stream()
                        .filter(e -> "mid".equals(e.getInvolvedObject().getName())
                                && "EvictionBlocked".equals(e.getReason()))
                        .anyMatch(e -> e.getCount() != null && e.getCount() >= 2));
        assertThat(client().v1().events().inNamespace("default").list().getItems().stream()
                        .filter(e -> "mid".equals(e.getInvolvedObject().getName())
                                && "EvictionBlocked".equals(e.getReason()))
                        .map(e -> e.getMessage())
                        .toList())
                .doesNotHaveDuplicates();

        client().resources(NodeMaintenance.class).withName("mid").delete();
        await().atMost(WAIT).until(() -> get("mid") == null);
        long evictionsAfterDelete = cluster()
                .requests()
                .count(ApiRequest.resource("pods", "eviction").and(ApiRequest.inNamespace("mid")));
        assertThat(client().nodes().withName("mid-1").get().getSpec().getUnschedulable())
                .isNotEqualTo(Boolean.TRUE);
        assertThat(podsOn("mid-1")).isEqualTo(2);
        // No reconcile re-cordons or keeps evicting once the maintenance is gone.
        await().during(Duration.ofSeconds(1))
                .atMost(WAIT)
                .until(() -> cluster()
                                        .requests()
                                        .count(ApiRequest.resource("pods", "eviction")
                                                .and(ApiRequest.inNamespace("mid")))
                                == evictionsAfterDelete
                        && !Boolean.TRUE.equals(client().nodes()
                                .withName("mid-1")
                                .get()
                                .getSpec()
                                .getUnschedulable()));
    }

    @Test
    void aSecondMaintenanceOfTheSameNodeIsRefusedAndItsDeletionLeavesTheNodeAlone() {
        cluster().seed().node("dup-1").role("worker").create();
        create("dup-a", "dup-1", s -> {});
        awaitPhase("dup-a", Phase.Succeeded);
        create("dup-b", "dup-1", s -> {});
        awaitPhase("dup-b", Phase.Failed);
        assertThat(get("dup-b").getStatus().getLastError()).contains("already has an active NodeMaintenance dup-a");

        client().resources(NodeMaintenance.class).withName("dup-b").delete();
        await().atMost(WAIT).until(() -> get("dup-b") == null);
        assertThat(client().nodes().withName("dup-1").get().getSpec().getUnschedulable())
                .isTrue();
        assertThat(client().leases()
                        .inNamespace("tenure-system")
                        .withName("node-dup-1")
                        .get()
                        .getSpec()
                        .getHolderIdentity())
                .startsWith("tenure/");
        client().resources(NodeMaintenance.class).withName("dup-a").delete();
        await().atMost(WAIT).until(() -> get("dup-a") == null);
    }

    @Test
    void deletingAWaitingMaintenanceLeavesTheNodeAloneAndClaimsNothing() {
        // The node is in maintenance under another holder of its lease (another Tenure door, another operator),
        // which cordoned it and set the maintenance condition; this NodeMaintenance only waited.
        cluster().seed().node("wait-1").role("worker").create();
        client().leases()
                .inNamespace("tenure-system")
                .resource(new io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder()
                        .withNewMetadata()
                        .withName("node-wait-1")
                        .withNamespace("tenure-system")
                        .endMetadata()
                        .withNewSpec()
                        .withHolderIdentity("tenure-annotation")
                        .withLeaseDurationSeconds(3600)
                        .withAcquireTime(java.time.ZonedDateTime.now(java.time.ZoneOffset.UTC))
                        .withRenewTime(java.time.ZonedDateTime.now(java.time.ZoneOffset.UTC))
                        .endSpec()
                        .build())
                .create();
        Conflicts.retry(() -> client().nodes().withName("wait-1").edit(n -> {
            n.getSpec().setUnschedulable(true);
            return n;
        }));
        Conflicts.retry(() -> client().nodes().withName("wait-1").editStatus(n -> {
            n.getStatus()
                    .getConditions()
                    .add(new io.fabric8.kubernetes.api.model.NodeConditionBuilder()
                            .withType(NodeMarks.CONDITION_TYPE)
                            .withStatus("True")
                            .withReason("Annotation")
                            .withMessage("held by the annotation door")
                            .build());
            return n;
        }));
        create("waiting", "wait-1", s -> {});
        awaitPhase("waiting", Phase.Waiting);

        client().resources(NodeMaintenance.class).withName("waiting").delete();
        await().atMost(WAIT).until(() -> get("waiting") == null);

        Node node = client().nodes().withName("wait-1").get();
        assertThat(node.getSpec().getUnschedulable()).isTrue();
        assertThat(node.getStatus().getConditions())
                .extracting(NodeCondition::getType)
                .contains(NodeMarks.CONDITION_TYPE);
        assertThat(eventReasons("waiting"))
                .contains("LeaseWaiting")
                .doesNotContain("UncordonNode", "RemovedMaintenance");
        assertThat(eventReasons("wait-1")).doesNotContain("UncordonNode");
    }

    @Test
    void invalidRequestsFailWithTheFieldNamedWhenNoWebhookIsInstalled() {
        create("bad-node", "no-such-node", s -> {});
        awaitPhase("bad-node", Phase.Failed);
        assertThat(get("bad-node").getStatus().getLastError()).contains("spec.nodeName: node no-such-node not found");

        cluster().seed().node("bad-1").role("worker").create();
        // kube-apiserver refuses this window (the CRD's pattern); an API server that does not enforce the CRD's
        // schema stores it, and then the reconciler's own check is what names the field
        cluster().enforceCrdSchemas(false);
        try {
            create("bad-window", "bad-1", s -> s.setWindow("10 minutes"));
        } finally {
            cluster().enforceCrdSchemas(true);
        }
        awaitPhase("bad-window", Phase.Failed);
        assertThat(get("bad-window").getStatus().getLastError())
                .startsWith("spec.window: \"10 minutes\" is not a duration");
        assertThat(client().nodes().withName("bad-1").get().getSpec().getUnschedulable())
                .isNotEqualTo(Boolean.TRUE);
    }

    @Test
    void fiftyMaintenancesOnFiftyNodesAllSucceed() {
        IntStream.range(0, 50)
                .forEach(i -> cluster().seed().node("many-" + i).role("worker").create());
        cluster()
                .seed()
                .deployment("many")
                .namespace("many")
                .replicas(100)
                .onNodes(IntStream.range(0, 50).mapToObj(i -> "many-" + i).toArray(String[]::new))
                .create();
        IntStream.range(0, 50).forEach(i -> create("many-" + i, "many-" + i, s -> {}));

        await().atMost(Duration.ofSeconds(90))
                .until(() -> IntStream.range(0, 50).allMatch(i -> phaseOf("many-" + i) == Phase.Succeeded));
        assertThat(client().pods().inNamespace("many").list().getItems()).isEmpty();
    }

    @Test
    void webhookRefusesEachRuleAndAdmitsAValidRequest() throws Exception {
        cluster().seed().node("hook-1").role("worker").create();
        assertThat(review("CREATE", nmJson("h1", "hook-1", ""), null)).contains("\"allowed\":true");
        assertThat(review("CREATE", nmJson("h2", "ghost", ""), null))
                .contains("\"allowed\":false")
                .contains("spec.nodeName: node ghost not found");
        assertThat(review("CREATE", nmJson("h3", "hook-1", ",\"window\":\"-5m\""), null))
                .contains("\"allowed\":false")
                .contains("spec.window: \\\"-5m\\\" is not a duration");
        assertThat(review("UPDATE", nmJson("h4", "hook-2", ""), nmJson("h4", "hook-1", "")))
                .contains("\"allowed\":false")
                .contains("spec.nodeName: is immutable (was hook-1, now hook-2)");
        create("hook-held", "hook-1", s -> {});
        awaitPhase("hook-held", Phase.Succeeded);
        assertThat(review("CREATE", nmJson("h5", "hook-1", ""), null))
                .contains("\"allowed\":false")
                .contains("already has an active NodeMaintenance hook-held");
        // issue 29 shared requests: the same duplicate asking to join is admitted, with join false it is not
        assertThat(review("CREATE", nmJson("h6", "hook-1", ",\"join\":true"), null))
                .contains("\"allowed\":true");
        assertThat(review("CREATE", nmJson("h7", "hook-1", ",\"join\":false"), null))
                .contains("\"allowed\":false")
                .contains("already has an active NodeMaintenance hook-held");
        client().resources(NodeMaintenance.class).withName("hook-held").delete();
    }

    /** Issue 29: the CRD schema, generated from the API types, refuses a join or priority of the wrong type. */
    @Test
    void theSchemaRefusesAJoinOrPriorityOfTheWrongTypeNamingTheField() {
        cluster().seed().node("typed-1").role("worker").create();
        for (String[] row :
                new String[][] {{"join", "\"yes\"", "spec.join"}, {"priority", "\"high\"", "spec.priority"}}) {
            String json = "{\"apiVersion\":\"tenure.dev/v1alpha1\",\"kind\":\"NodeMaintenance\",\"metadata\":"
                    + "{\"name\":\"typed-" + row[0] + "\"},\"spec\":{\"nodeName\":\"typed-1\",\"" + row[0] + "\":"
                    + row[1] + "}}";
            io.fabric8.kubernetes.api.model.GenericKubernetesResource r = client().getKubernetesSerialization()
                    .unmarshal(json, io.fabric8.kubernetes.api.model.GenericKubernetesResource.class);
            org.assertj.core.api.Assertions.assertThatThrownBy(
                            () -> client().genericKubernetesResources("tenure.dev/v1alpha1", "NodeMaintenance")
                                    .resource(r)
                                    .create())
                    .isInstanceOfSatisfying(
                            io.fabric8.kubernetes.client.KubernetesClientException.class,
                            e -> assertThat(e.getCode()).isEqualTo(422))
                    .hasMessageContaining(row[2]);
        }
    }

    /** Issue 26: creating a NodeMaintenance is node-admin power; `edit` alone is refused, naming the right. */
    @Test
    void webhookRefusesAnEditOnlyUserAndAdmitsANodeAdmin() throws Exception {
        cluster().seed().node("authz-1").role("worker").create();
        assertThat(review("CREATE", nmJson("a1", "authz-1", ""), null, EDIT_USER))
                .contains("\"allowed\":false")
                .contains("\"code\":403")
                .contains("user eddie may not put node authz-1 into maintenance")
                .contains("patch nodes authz-1 (cordon and taint the node)");
        assertThat(review("CREATE", nmJson("a2", "authz-1", ""), null, NODE_ADMIN))
                .contains("\"allowed\":true");
        assertThat(review("CREATE", nmJson("a3", "authz-1", ",\"drain\":{\"disableEviction\":true}"), null, NODE_ADMIN))
                .contains("\"allowed\":true");
        // Turning on disableEviction later is checked too: eddie may edit the resource, not delete pods past PDBs.
        assertThat(review(
                        "UPDATE",
                        nmJson("a4", "authz-1", ",\"drain\":{\"disableEviction\":true}"),
                        nmJson("a4", "authz-1", ""),
                        EDIT_USER))
                .contains("\"allowed\":false")
                .contains("patch nodes authz-1");
        assertThat(review("CREATE", nmJson("a5", "authz-1", ""), null, "mallory"))
                .contains("\"allowed\":false")
                .contains("create pods/eviction (all namespaces)");
    }

    /**
     * Issue 39: deleting a NodeMaintenance ends it and uncordons its node, so it needs what undoing by hand needs:
     * `edit` alone is refused, naming the node and the right; a node admin and the operator itself are admitted.
     */
    @Test
    void webhookRefusesADeleteByAnEditOnlyUserAndAdmitsANodeAdmin() throws Exception {
        String old = nmJson("d1", "authz-d", "");
        assertThat(review("DELETE", "null", old, EDIT_USER))
                .contains("\"allowed\":false")
                .contains("\"code\":403")
                .contains("user eddie may not end the maintenance of node authz-d")
                .contains("patch nodes authz-d (uncordon, untaint and restore the node)");
        assertThat(review("DELETE", "null", old, NODE_ADMIN)).contains("\"allowed\":true");
        assertThat(review("DELETE", "null", old, "system:serviceaccount:tenure-system:tenure-operator"))
                .contains("\"allowed\":true");
    }

    @jakarta.inject.Inject
    AdmissionCaches caches;

    /**
     * Issue 29's fair queue behind the webhook: a CREATE over max-nodes-in-maintenance is admitted with a warning
     * naming the limit (it waits Pending in the queue), not refused; a broken rule is still refused.
     */
    @Test
    // the injected limits of the webhook are swapped for this test's reviews and put back
    @SuppressWarnings("UnnecessaryAssignment")
    void webhookAdmitsACreateOverTheLimitWithAWarningSoItQueues() throws Exception {
        cluster().seed().node("limit-1").role("worker").create();
        cluster().seed().node("limit-2").role("worker").create();
        create("limit-a", "limit-1", s -> {});
        await().atMost(WAIT)
                .until(() -> caches.cached()
                        && caches.node("limit-2").isPresent()
                        && caches.maintenances().stream()
                                .anyMatch(
                                        nm -> "limit-a".equals(nm.getMetadata().getName())));
        // the webhook resource of this application (a singleton): its limits only, for this test
        NodeMaintenanceWebhook webhookResource = jakarta.enterprise
                .inject
                .spi
                .CDI
                .current()
                .select(NodeMaintenanceWebhook.class)
                .get();
        MaintenanceLimits configured = webhookResource.limits;
        webhookResource.limits = new MaintenanceLimits(java.util.OptionalInt.of(1), java.util.OptionalInt.empty());
        try {
            String answer = review("CREATE", nmJson("limit-b", "limit-2", ""), null);
            assertThat(answer)
                    .contains("\"allowed\":true")
                    .contains("held in the queue until a slot frees: tenure.maintenance.max-nodes-in-maintenance");
            assertThat(review("CREATE", nmJson("limit-c", "limit-2", ",\"window\":\"-5m\""), null))
                    .contains("\"allowed\":false")
                    .doesNotContain("held in the queue");
        } finally {
            webhookResource.limits = configured;
        }
    }

    /** Issue 25: admission reads the Node and the NodeMaintenances from the caches, not a GET and LISTs per CREATE. */
    @Test
    void webhookReadsTheNodeFromTheSharedCache() throws Exception {
        cluster().seed().node("cached-1").role("worker").create();
        create("cached-other", "cached-2", s -> {});
        await().atMost(WAIT)
                .until(() -> caches.cached()
                        && caches.node("cached-1").isPresent()
                        && caches.maintenances().stream()
                                .anyMatch(nm ->
                                        "cached-other".equals(nm.getMetadata().getName())));
        java.util.function.Predicate<ApiRequest> reads = ApiRequest.resource("nodes")
                .and(r -> r.name().equals("cached-1") || r.verb().equals("list"))
                .or(ApiRequest.resource("nodemaintenances").and(ApiRequest.verb("list")))
                .and(r -> r.verb().equals("get") || r.verb().equals("list"));
        long before = cluster().requests().count(reads);

        assertThat(review("CREATE", nmJson("c1", "cached-1", ""), null)).contains("\"allowed\":true");

        assertThat(cluster().requests().count(reads))
                .as("GET/LIST of nodes and LIST of nodemaintenances made for one admission review")
                .isEqualTo(before);
        client().resources(NodeMaintenance.class).withName("cached-other").delete();
    }

    /**
     * A webhook whose cache lags may admit a second NodeMaintenance of a node a moment after the first (both
     * CREATEs reviewed before the first reached the cache). The reconciler's refusal rules decide between them:
     * created together, the earlier goes ahead and the later ends Failed before touching the node.
     */
    @Test
    void twoMaintenancesOfOneNodeCreatedTogetherStartOnlyTheEarlier() {
        cluster().seed().node("lag-1").role("worker").create();
        create("lag-a", "lag-1", s -> {});
        create("lag-b", "lag-1", s -> {});

        awaitPhase("lag-a", Phase.Succeeded);
        awaitPhase("lag-b", Phase.Failed);
        assertThat(get("lag-b").getStatus().getLastError()).contains("already has an active NodeMaintenance lag-a");
        assertThat(eventReasons("lag-b")).doesNotContain(MaintenanceEvents.CORDONED, MaintenanceEvents.BEGIN);

        client().resources(NodeMaintenance.class).withName("lag-b").delete();
        client().resources(NodeMaintenance.class).withName("lag-a").delete();
        await().atMost(WAIT).until(() -> get("lag-a") == null && get("lag-b") == null);
        assertThat(client().nodes().withName("lag-1").get().getSpec().getUnschedulable())
                .isNotEqualTo(Boolean.TRUE);
    }

    static String nmJson(String name, String node, String extraSpec) {
        return "{\"apiVersion\":\"tenure.dev/v1alpha1\",\"kind\":\"NodeMaintenance\",\"metadata\":{\"name\":\"" + name
                + "\"},\"spec\":{\"nodeName\":\"" + node + "\"" + extraSpec + "}}";
    }

    String review(String operation, String object, String oldObject) throws Exception {
        return review(operation, object, oldObject, NODE_ADMIN);
    }

    String review(String operation, String object, String oldObject, String user) throws Exception {
        String body =
                "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{\"uid\":\"u-1\","
                        + "\"userInfo\":{\"username\":\"" + user + "\",\"groups\":[\"system:authenticated\"]},"
                        + "\"kind\":{\"group\":\"tenure.dev\",\"version\":\"v1alpha1\",\"kind\":\"NodeMaintenance\"},"
                        + "\"operation\":\"" + operation + "\",\"object\":" + object
                        + (oldObject == null ? "" : ",\"oldObject\":" + oldObject) + "}}";
        HttpResponse<String> response = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(webhook.toString()))
                                .header("Content-Type", "application/json")
                                .POST(HttpRequest.BodyPublishers.ofString(body))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).contains("\"uid\":\"u-1\"");
        return response.body();
    }

    @Test
    void metricsAreExposedWithTheTenurePrefix() throws Exception {
        cluster().seed().node("metric-1").role("worker").create();
        cluster()
                .seed()
                .deployment("metric")
                .namespace("metric")
                .replicas(1)
                .onNodes("metric-1")
                .create();
        create("metric", "metric-1", s -> {});
        awaitPhase("metric", Phase.Succeeded);
        String metrics = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(
                                        webhook.toString().replace("/validate-nodemaintenance", "/q/metrics")))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
        assertThat(metrics)
                .contains("tenure_maintenance_maintenances{phase=\"Succeeded\"}")
                .contains("tenure_maintenance_evictions_total{result=\"ok\"}")
                .contains("tenure_maintenance_drain_duration_seconds_bucket")
                .contains("tenure_maintenance_lease_total{outcome=\"acquired\"}")
                .contains("tenure_maintenance_pending_pods{node=\"metric-1\"}");
        client().resources(NodeMaintenance.class).withName("metric").delete();
    }

    @Test
    void aRefusedDrainIsRetriedWhenTheSpecChanges() {
        cluster().seed().node("retry-1").role("worker").create();
        cluster().seed().pod("loner").namespace("retry").onNodes("retry-1").create();
        create("retry", "retry-1", s -> {
            s.setDrain(new DrainSpec());
            s.getDrain().setForce(false);
        });
        awaitPhase("retry", Phase.Failed);
        assertThat(get("retry").getStatus().getLastError())
                .contains("retry/loner")
                .contains("set spec.drain.force");
        assertThat(podsOn("retry-1")).isEqualTo(1);

        Conflicts.retry(() -> client().resources(NodeMaintenance.class)
                .withName("retry")
                .edit(nm -> {
                    nm.getSpec().getDrain().setForce(true);
                    return nm;
                }));
        awaitPhase("retry", Phase.Succeeded);
        assertThat(podsOn("retry-1")).isZero();
        assertThat(get("retry").getStatus().getLastError()).isNull();
        client().resources(NodeMaintenance.class).withName("retry").delete();
    }
}
