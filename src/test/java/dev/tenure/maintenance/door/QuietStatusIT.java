package dev.tenure.maintenance.door;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.maintenance.api.LeaseStatus;
import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.NodeMaintenanceSpec;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.testsupport.ApiRequest;
import dev.tenure.testsupport.EmulatedCluster;
import dev.tenure.testsupport.EmulatedClusterResource;
import dev.tenure.testsupport.EndToEnd;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import java.time.Duration;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * Day two at scale (issue 25): an idle maintenance costs no status writes. The node lease is renewed every
 * second here (3 s lease), so several renew periods pass in seconds; the Lease carries the renewals, the
 * NodeMaintenance status changes only when something a reader sees changes.
 */
@QuarkusTest
@TestProfile(QuietStatusProfile.class)
@QuarkusTestResource(EmulatedClusterResource.class)
@EndToEnd
class QuietStatusIT {

    static final Duration WAIT = Duration.ofSeconds(30);

    EmulatedCluster cluster() {
        return EmulatedClusterResource.cluster();
    }

    KubernetesClient client() {
        return cluster().client();
    }

    NodeMaintenance get(String name) {
        return client().resources(NodeMaintenance.class).withName(name).get();
    }

    long count(Predicate<ApiRequest> p) {
        return cluster().requests().count(p);
    }

    /** A worker {@code node} with {@code pods} pods of Deployment {@code app} on it, to drain. */
    void seedNodeWithPods(String node, String app, int pods) {
        cluster().seed().node(node).role("worker").create();
        cluster()
                .seed()
                .deployment(app)
                .namespace(app)
                .replicas(pods)
                .onNodes(node)
                .create();
    }

    /** Waits until {@code name} is Succeeded on the API server (a GET, never delayed); that version. */
    NodeMaintenance awaitSucceeded(String name) {
        await().atMost(WAIT).pollInterval(Duration.ofMillis(20)).until(() -> {
            NodeMaintenance nm = get(name);
            return nm != null && nm.getStatus() != null && nm.getStatus().getPhase() == Phase.Succeeded;
        });
        return get(name);
    }

    /**
     * Six renewals of {@code node}'s lease, renewed every 2 s while idle ({@link QuietStatusProfile}), pass without a status write of {@code name}: the
     * reconciler looked at least as often (every renewEvery), each time reading a lease whose renewTime had moved.
     */
    void assertUnwrittenOverSixRenewals(String name, String node, NodeMaintenance succeeded, String what) {
        long statusBefore = count(statusWritesOf(name));
        long renewalsBefore = count(renewalsOf(node));

        await().atMost(WAIT).until(() -> count(renewalsOf(node)) >= renewalsBefore + 6);

        assertThat(count(statusWritesOf(name))).as(what).isEqualTo(statusBefore);
        assertThat(get(name).getMetadata().getResourceVersion())
                .isEqualTo(succeeded.getMetadata().getResourceVersion());
    }

    static Predicate<ApiRequest> statusWritesOf(String maintenance) {
        return ApiRequest.resource("nodemaintenances", "status")
                .and(ApiRequest.named(maintenance))
                .and(r -> !r.verb().equals("get"));
    }

    /** The renewals of Tenure's lease on {@code node}. */
    static Predicate<ApiRequest> renewalsOf(String node) {
        return ApiRequest.resource("leases")
                .and(ApiRequest.named("node-" + node))
                .and(ApiRequest.verb("update"));
    }

    @Test
    void anIdleSucceededMaintenanceWritesNoStatusWhileItsLeaseIsRenewed() {
        seedNodeWithPods("idle-1", "idle", 1);
        client().resource(new NodeMaintenance("idle", new NodeMaintenanceSpec("idle-1", "idle test")))
                .create();
        NodeMaintenance succeeded = awaitSucceeded("idle");

        assertUnwrittenOverSixRenewals(
                "idle",
                "idle-1",
                succeeded,
                "status writes of an idle Succeeded NodeMaintenance over six lease renewals");
        NodeMaintenance now = get("idle");
        assertThat(now.getStatus().getLastUpdate())
                .isEqualTo(succeeded.getStatus().getLastUpdate());
        // The lease block says which Lease and who holds it since when; renewals live on the Lease.
        LeaseStatus lease = now.getStatus().getLease();
        assertThat(lease.getName()).isEqualTo("node-idle-1");
        assertThat(lease.getHolderIdentity()).startsWith("tenure/");
        assertThat(lease.getAcquireTime()).isNotNull();
        assertThat(lease.getRenewTime()).isNull();
        assertThat(lease.getExpireTime()).isNull();

        client().resources(NodeMaintenance.class).withName("idle").delete();
        await().atMost(WAIT).until(() -> get("idle") == null);
    }

    /**
     * The informer's cache runs behind the API server (a busy cluster: here every NodeMaintenance watch event arrives
     * 2 s late). Reconciles woken in the meantime (the node lease's renewals, every second) read the maintenance as it
     * was before the reconciler's own last status write; deciding from that version wrote the last transition again.
     * Found by a fresh-clone `make test` beside a second one: this test's first case saw a fourth status write.
     */
    @Test
    void aReconcileThatReadsAVersionOlderThanItsOwnLastWriteDoesNotWriteItAgain() {
        seedNodeWithPods("lagging-1", "lagging", 2);
        cluster().lagWatches("nodemaintenances", Duration.ofSeconds(2));
        try {
            client().resource(new NodeMaintenance("lagging", new NodeMaintenanceSpec("lagging-1", "lagging watch")))
                    .create();
            NodeMaintenance succeeded = awaitSucceeded("lagging");

            // six renewals: three watch lags' worth of reconciles that read a version from before the Succeeded write
            assertUnwrittenOverSixRenewals(
                    "lagging", "lagging-1", succeeded, "status writes after Succeeded while the watch lags 2 s");
        } finally {
            cluster().lagWatches("nodemaintenances", Duration.ZERO);
        }
        client().resources(NodeMaintenance.class).withName("lagging").delete();
        await().atMost(WAIT).until(() -> get("lagging") == null);
    }
}
