package dev.tenure.maintenance.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.maintenance.MaintenanceOperatorRig;
import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.NodeMaintenanceSpec;
import dev.tenure.maintenance.api.NodeMaintenanceStatus;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.api.RecurringWindowSpec;
import dev.tenure.maintenance.api.ScheduleSpec;
import dev.tenure.maintenance.door.MaintenanceLifecycleIT;
import dev.tenure.testsupport.EmulatedCluster;
import dev.tenure.testsupport.EndToEnd;
import dev.tenure.testsupport.MutableClock;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 37 (metrics per stage): the time a request waits in the fair queue, through the real reconciler on the
 * emulated cluster, on a clock only the test moves: from its first hold to its admission, to the second.
 */
@EndToEnd
class QueueWaitMetricsIT {

    MaintenanceOperatorRig rig;

    @AfterEach
    void stop() {
        if (rig != null) {
            rig.close();
        }
    }

    void create(String name, String node) {
        rig.client
                .resource(new NodeMaintenance(name, new NodeMaintenanceSpec(node, "test " + name)))
                .create();
    }

    Timer queue(String outcome) {
        return stage("queue", outcome);
    }

    Timer stage(String stage, String outcome) {
        return rig.registry
                .find("tenure.maintenance.stage.duration")
                .tag("stage", stage)
                .tag("outcome", outcome)
                .timer();
    }

    @Test
    void aRequestHeldInTheQueueIsTimedFromItsFirstHoldToItsAdmission() {
        MutableClock clock = new MutableClock(Instant.now().truncatedTo(ChronoUnit.SECONDS));
        rig = MaintenanceOperatorRig.start(
                EmulatedCluster.Options.forTests().clock(clock),
                MaintenanceLifecycleIT.SETTINGS,
                clock,
                new MaintenanceLimits(OptionalInt.of(1), OptionalInt.empty()),
                Duration.ofSeconds(1),
                "w1",
                "w2");
        create("first", "w1");
        await().atMost(Duration.ofSeconds(20)).until(() -> rig.phase("first") == Phase.Succeeded);
        create("second", "w2");
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            NodeMaintenanceStatus s = rig.status("second");
            return s != null
                    && s.getPhase() == Phase.Pending
                    && Integer.valueOf(1).equals(s.getQueuePosition());
        });

        clock.advance(Duration.ofSeconds(300));
        rig.client.resources(NodeMaintenance.class).withName("first").delete();
        await().atMost(Duration.ofSeconds(20)).until(() -> rig.phase("second") == Phase.Succeeded);

        assertThat(queue("completed")).isNotNull();
        assertThat(queue("completed").count()).as("the first was never held").isEqualTo(1);
        assertThat(queue("completed").totalTime(TimeUnit.SECONDS)).isEqualTo(300.0);
    }

    /** The door's other wait: a request Scheduled for its window is timed from its first look to the window's opening. */
    @Test
    void aRequestScheduledForItsWindowIsTimedUntilTheWindowOpens() {
        // 10:00 UTC: the window (every day, 10:30-11:30 UTC) opens in 1,800 s
        MutableClock clock = new MutableClock(Instant.parse("2026-12-01T10:00:00Z"));
        rig = MaintenanceOperatorRig.start(
                EmulatedCluster.Options.forTests().clock(clock),
                MaintenanceLifecycleIT.SETTINGS,
                clock,
                new MaintenanceLimits(OptionalInt.empty(), OptionalInt.empty()),
                Duration.ofSeconds(1),
                "w1");
        NodeMaintenanceSpec spec = new NodeMaintenanceSpec("w1", "test windowed");
        spec.setSchedule(new ScheduleSpec(null, new RecurringWindowSpec(null, "10:30", "11:30", "UTC")));
        rig.client.resource(new NodeMaintenance("windowed", spec)).create();
        await().atMost(Duration.ofSeconds(20)).until(() -> rig.phase("windowed") == Phase.Scheduled);
        assertThat(stage("window_wait", "completed")).as("still waiting").isNull();

        clock.advance(Duration.ofSeconds(1_800));
        // the door's next look was timed on the clock's old reading (30 min away): a spec change looks again now
        rig.client.resources(NodeMaintenance.class).withName("windowed").edit(nm -> {
            nm.getSpec().setReason("test windowed, looked at again");
            return nm;
        });
        await().atMost(Duration.ofSeconds(20))
                .alias("windowed: " + rig.status("windowed").getPhase() + " "
                        + rig.status("windowed").getLastError())
                .until(() -> rig.phase("windowed") == Phase.Succeeded);

        assertThat(stage("window_wait", "completed")).isNotNull();
        assertThat(stage("window_wait", "completed").count()).isEqualTo(1);
        assertThat(stage("window_wait", "completed").totalTime(TimeUnit.SECONDS))
                .isEqualTo(1_800.0);
        assertThat(queue("completed")).as("never held by a limit").isNull();
    }
}
