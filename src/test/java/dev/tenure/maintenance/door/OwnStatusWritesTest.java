package dev.tenure.maintenance.door;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.NodeMaintenanceSpec;
import dev.tenure.maintenance.api.NodeMaintenanceStatus;
import dev.tenure.maintenance.api.Phase;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import org.junit.jupiter.api.Test;

/** A reconcile that reads a version its own status write started from decides from that write's answer instead. */
class OwnStatusWritesTest {

    final OwnStatusWrites writes = new OwnStatusWrites(new KubernetesSerialization());

    static NodeMaintenance version(String resourceVersion, Phase phase) {
        NodeMaintenance nm = new NodeMaintenance("m1", new NodeMaintenanceSpec("n1", "test"));
        nm.getMetadata().setResourceVersion(resourceVersion);
        NodeMaintenanceStatus status = new NodeMaintenanceStatus();
        status.setPhase(phase);
        nm.setStatus(status);
        return nm;
    }

    @Test
    void aVersionWrittenOverIsReadAsTheNewestAnswerUntilTheInformerCatchesUp() {
        writes.wrote(version("10", Phase.Running), version("11", Phase.Running));
        writes.wrote(version("11", Phase.Running), version("12", Phase.Succeeded));

        for (String stale : new String[] {"10", "11"}) {
            NodeMaintenance read = writes.freshest(version(stale, Phase.Running));
            assertThat(read.getMetadata().getResourceVersion()).isEqualTo("12");
            assertThat(read.getStatus().getPhase()).isEqualTo(Phase.Succeeded);
        }
        NodeMaintenance first = writes.freshest(version("10", Phase.Running));
        first.getStatus().setPhase(Phase.Failed);
        assertThat(writes.freshest(version("10", Phase.Running)).getStatus().getPhase())
                .as("each reconcile gets a copy of its own")
                .isEqualTo(Phase.Succeeded);

        NodeMaintenance caughtUp = version("12", Phase.Succeeded);
        assertThat(writes.freshest(caughtUp)).isSameAs(caughtUp);
        assertThat(writes.remembered())
                .as("the memory ends once the informer has the newest write")
                .isZero();
    }

    @Test
    void aVersionNeverWrittenFromIsNewerAndEndsTheMemory() {
        writes.wrote(version("10", Phase.Running), version("11", Phase.Running));

        NodeMaintenance edited = version("13", Phase.Running); // someone else's write after ours
        assertThat(writes.freshest(edited)).isSameAs(edited);
        assertThat(writes.remembered()).isZero();
    }

    @Test
    void aDeletedMaintenanceIsForgotten() {
        writes.wrote(version("10", Phase.Running), version("11", Phase.Running));
        writes.forget("m1");

        NodeMaintenance read = version("10", Phase.Running);
        assertThat(writes.freshest(read)).isSameAs(read);
    }

    @Test
    void aStatusIsForeignWhenItIsNeitherTheLastWrittenNorTheOneBeingSent() {
        NodeMaintenance none = version("9", Phase.Running);
        none.setStatus(null);
        assertThat(writes.foreign(none)).as("no status: nothing to correct").isFalse();
        assertThat(writes.foreign(version("9", Phase.Running)))
                .as("a status from before this operator instance, or another client's")
                .isTrue();

        NodeMaintenance sent = version("10", Phase.Succeeded);
        writes.sending("m1", sent.getStatus());
        assertThat(writes.foreign(version("11", Phase.Succeeded)))
                .as("the watch delivers the write before its answer returns: ours")
                .isFalse();

        writes.wrote(version("10", Phase.Running), version("11", Phase.Succeeded));
        assertThat(writes.foreign(version("11", Phase.Succeeded))).isFalse();
        assertThat(writes.foreign(version("12", Phase.Failed)))
                .as("another client's write after ours")
                .isTrue();

        assertThat(writes.readFresh("m1"))
                .as("a foreign write seen: the reconcile it wakes reads from the API server, once")
                .isTrue();
        assertThat(writes.readFresh("m1")).isFalse();
        assertThat(writes.foreign(version("11", Phase.Succeeded))).isFalse();
        assertThat(writes.readFresh("m1"))
                .as("our own write seen: the cache will do")
                .isFalse();

        writes.stoodBy("m1", version("12", Phase.Failed).getStatus());
        assertThat(writes.foreign(version("12", Phase.Failed)))
                .as("a foreign status a step checked and kept is ours from then on")
                .isFalse();
    }

    @Test
    void aForeignWriteThatAlsoMovesTheQueueIsNotedForAFreshRead() {
        writes.wrote(version("10", Phase.Running), version("11", Phase.Failed));
        NodeMaintenance ours = version("11", Phase.Failed);
        NodeMaintenance foreign = version("12", Phase.Pending); // the phase moved: it wakes the queue as well

        assertThat(NodeMaintenanceWakeUps.passes(ours, foreign, writes::foreign))
                .isTrue();
        assertThat(writes.readFresh("m1"))
                .as("noted whatever else woke it: the primary cache may still show our own write")
                .isTrue();
        assertThat(NodeMaintenanceWakeUps.passes(version("11", Phase.Failed), ours, writes::foreign))
                .as("our own write, unchanged: wakes nobody")
                .isFalse();
        assertThat(writes.readFresh("m1")).isFalse();
    }

    /**
     * A lagging watch delivers this reconciler's own earlier writes after its later ones (QuietStatusIT's 2 s lag, red
     * in a fresh-clone run: the 50% write arrived after Succeeded, was taken for a foreign one, and its wake-up wrote
     * Succeeded a second time). A version a later write of ours started from is old news, not a foreign write.
     */
    @Test
    void anOwnEarlierWriteDeliveredLateIsNotForeign() {
        writes.wrote(version("10", Phase.Running), version("11", Phase.Running));
        writes.wrote(version("11", Phase.Running), version("12", Phase.Succeeded));

        NodeMaintenance late = version("11", Phase.Running);
        late.getStatus().setDrainProgress(50);
        assertThat(writes.foreign(late))
                .as("our 50% write, delivered after Succeeded")
                .isFalse();
        assertThat(writes.readFresh("m1")).isFalse();
        assertThat(writes.foreign(version("13", Phase.Failed)))
                .as("a write after our newest is still another client's")
                .isTrue();
    }

    /**
     * The GET of a reconcile woken by a foreign write reads the newest version, but the informer's cache may still be
     * behind it: that read must not end the memory of our writes, or the next reconcile that reads the cache's older
     * version of our own write takes it for a foreign status and writes again.
     */
    @Test
    void aReadFromTheServerKeepsTheMemoryForTheCacheThatIsStillBehind() {
        writes.wrote(version("10", Phase.Running), version("11", Phase.Running));
        writes.wrote(version("11", Phase.Running), version("12", Phase.Succeeded));

        OwnStatusWrites.Read fromServer = writes.readFromServer(version("12", Phase.Succeeded));
        assertThat(fromServer.statusOurs()).isTrue();
        assertThat(writes.remembered()).isEqualTo(1);

        OwnStatusWrites.Read fromCache = writes.read(version("11", Phase.Running));
        assertThat(fromCache.nm().getStatus().getPhase())
                .as("the cache's older version is read as our newest answer")
                .isEqualTo(Phase.Succeeded);
        assertThat(fromCache.statusOurs()).isTrue();
    }
}
