package dev.tenure.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.election.LeaseKey;
import dev.tenure.election.LeaseRecord;
import dev.tenure.election.kube.KubeLeaseStore;
import dev.tenure.testsupport.EmulatedClusterResource;
import dev.tenure.testsupport.EndToEnd;
import io.javaoperatorsdk.operator.Operator;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.health.SmallRyeHealth;
import io.smallrye.health.SmallRyeHealthReporter;
import jakarta.inject.Inject;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The single test instance leads at once, so reconcilers start; health and metrics say so. */
@QuarkusTest
// The emulated cluster, like every other @QuarkusTest: test resources without restriction apply to all
// of them, and a second kind of API server here left the app watching a server already stopped.
@QuarkusTestResource(EmulatedClusterResource.class)
@EndToEnd
class OperatorLeadershipTest {
    @Inject
    OperatorLeadership leadership;

    @Inject
    SmallRyeHealthReporter health;

    @Inject
    MeterRegistry registry;

    @Inject
    Operator operator;

    @Test
    void leadsQuicklyAndStartsReconcilers() {
        await().atMost(Duration.ofSeconds(10)).until(() -> leadership.isLeader() && leadership.reconcilersStarted());
        LeaseRecord lease = new KubeLeaseStore(EmulatedClusterResource.cluster().client())
                .get(LeaseKey.of("tenure-system", "tenure-operator"));
        assertThat(lease.holderIdentity())
                .isEqualTo(leadership.elector().orElseThrow().identity());
        assertThat(lease.leaseDurationSeconds())
                .as("%test.tenure.leader-election.lease-duration")
                .isEqualTo(30);
        // Reconcilers registered by the other packages run only now that this instance leads.
        assertThat(operator.getRuntimeInfo().isStarted()).isEqualTo(operator.getRegisteredControllersNumber() > 0);

        SmallRyeHealth ready = health.getReadiness();
        assertThat(ready.isDown()).as(ready.getPayload().toString()).isFalse();
        assertThat(ready.getPayload().toString()).contains("tenure-leadership").contains("\"role\":\"leader\"");
        SmallRyeHealth live = health.getLiveness();
        assertThat(live.isDown()).isFalse();
        assertThat(live.getPayload().toString()).contains("tenure-leader-election");

        assertThat(registry.get("tenure.leader.is_leader").gauge().value()).isEqualTo(1.0);
        assertThat(registry.get("tenure.leader.transitions").counter().count()).isEqualTo(1.0);
        await().atMost(Duration.ofSeconds(10))
                .until(() -> registry.get("tenure.leader.renew").timer().count() > 0);
    }
}
