package dev.tenure.maintenance.drain;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.maintenance.drain.VolumeDetach.Attachment;
import dev.tenure.maintenance.drain.VolumeDetach.Options;
import dev.tenure.maintenance.drain.VolumeDetach.Verdict;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The wait for the node's volumes to detach after the drain (Cluster API's nodeVolumeDetachTimeout). */
class VolumeDetachTest {

    static final Instant DRAINED = Instant.parse("2026-03-01T10:00:00Z");
    static final Duration POLL = Duration.ofSeconds(2);
    static final Attachment EBS = new Attachment("csi-1", "ebs.csi.aws.com", "pv-data");
    static final Attachment NFS = new Attachment("csi-2", "nfs.csi.k8s.io", null);

    static Stream<Arguments> cases() {
        Options noLimit = new Options(true, Optional.empty(), Set.of());
        Options fiveMinutes = new Options(true, Optional.of(Duration.ofMinutes(5)), Set.of());
        Options ignoreNfs = new Options(true, Optional.empty(), Set.of("nfs.csi.k8s.io"));
        return Stream.of(
                Arguments.of("none left: detached", List.of(), noLimit, 0, Verdict.Detached.class, "holds node w1"),
                Arguments.of("one left: wait", List.of(EBS), noLimit, 600, Verdict.Waiting.class, "csi-1 (pv-data)"),
                Arguments.of(
                        "an ignored attacher's does not hold the node",
                        List.of(NFS),
                        ignoreNfs,
                        0,
                        Verdict.Detached.class,
                        "1 by ignored attachers left"),
                Arguments.of(
                        "an ignored attacher's does not hide another",
                        List.of(NFS, EBS),
                        ignoreNfs,
                        0,
                        Verdict.Waiting.class,
                        "by ebs.csi.aws.com"),
                Arguments.of(
                        "before the timeout: wait", List.of(EBS), fiveMinutes, 299, Verdict.Waiting.class, "csi-1"),
                Arguments.of(
                        "at the timeout: named failure",
                        List.of(EBS, NFS),
                        fiveMinutes,
                        300,
                        Verdict.TimedOut.class,
                        "VolumeDetachTimedOut: volumes of node w1 still attached 5m after the drain: "
                                + "csi-1 (pv-data) by ebs.csi.aws.com, csi-2 by nfs.csi.k8s.io"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void decides(
            String name, List<Attachment> onNode, Options options, int secondsAfter, Class<?> expected, String says) {
        Verdict v = VolumeDetach.decide(
                "w1", VolumeDetach.OnNode.holding(onNode), options, DRAINED, POLL, DRAINED.plusSeconds(secondsAfter));
        assertThat(v).isInstanceOf(expected);
        String text = v instanceof Verdict.Detached d
                ? d.message()
                : v instanceof Verdict.Waiting w ? String.join(", ", w.waitingFor()) : ((Verdict.TimedOut) v).message();
        assertThat(text).contains(says);
        if (v instanceof Verdict.Waiting w) {
            assertThat(w.requeueAfter()).isLessThanOrEqualTo(POLL).isPositive();
        }
    }

    static io.fabric8.kubernetes.api.model.storage.VolumeAttachment va(String name, String pv, Boolean attached) {
        return new io.fabric8.kubernetes.api.model.storage.VolumeAttachmentBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withNewSpec()
                .withAttacher("ebs.csi.aws.com")
                .withNodeName("w1")
                .withNewSource()
                .withPersistentVolumeName(pv)
                .endSource()
                .endSpec()
                .withNewStatus()
                .withAttached(attached)
                .endStatus()
                .build();
    }

    static io.fabric8.kubernetes.api.model.Pod podUsing(String name, String claim, boolean terminating) {
        return new io.fabric8.kubernetes.api.model.PodBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace("app")
                .withDeletionTimestamp(terminating ? "2026-03-01T10:00:00Z" : null)
                .endMetadata()
                .withNewSpec()
                .withNodeName("w1")
                .addNewVolume()
                .withName("data")
                .withNewPersistentVolumeClaim()
                .withClaimName(claim)
                .endPersistentVolumeClaim()
                .endVolume()
                .endSpec()
                .build();
    }

    static io.fabric8.kubernetes.api.model.Node node(String ready) {
        return new io.fabric8.kubernetes.api.model.NodeBuilder()
                .withNewMetadata()
                .withName("w1")
                .endMetadata()
                .withNewStatus()
                .addNewCondition()
                .withType("Ready")
                .withStatus(ready)
                .endCondition()
                .endStatus()
                .build();
    }

    @org.junit.jupiter.api.Test
    void onlyAttachedVolumesNoStayingPodUsesHoldTheNode() {
        VolumeDetach.OnNode read = VolumeDetach.onNode(
                node("True"),
                List.of(
                        va("held", "pv-a", true),
                        va("attaching", "pv-b", false),
                        va("no-status", "pv-c", null),
                        va("kept", "pv-d", true),
                        va("evicted-pods", "pv-e", true)),
                java.util.Map.of("pv-a", "app/a", "pv-d", "app/d", "pv-e", "app/e"),
                List.of(podUsing("agent", "d", false), podUsing("leaving", "e", true)));

        assertThat(read.attachments()).extracting(Attachment::name).containsExactly("held", "evicted-pods");
        assertThat(read.keptByPods()).isEqualTo(1);
        assertThat(read.unreachable()).isFalse();
        Verdict v = VolumeDetach.decide(
                "w1",
                new VolumeDetach.OnNode(List.of(), 1, false),
                new Options(true, Optional.empty(), Set.of()),
                DRAINED,
                POLL,
                DRAINED);
        assertThat(((Verdict.Detached) v).message()).contains("1 used by pods that stay on the node");
    }

    @org.junit.jupiter.api.Test
    void anUnreachableNodeIsNotWaitedFor() {
        VolumeDetach.OnNode read =
                VolumeDetach.onNode(node("Unknown"), List.of(va("held", "pv-a", true)), java.util.Map.of(), List.of());

        assertThat(read.unreachable()).isTrue();
        Verdict v = VolumeDetach.decide(
                "w1", read, new Options(true, Optional.of(Duration.ofMinutes(5)), Set.of()), DRAINED, POLL, DRAINED);
        assertThat(v).isInstanceOf(Verdict.Detached.class);
        assertThat(((Verdict.Detached) v).message()).contains("unreachable");
        assertThat(VolumeDetach.onNode(node("False"), List.of(), java.util.Map.of(), List.of())
                        .unreachable())
                .as("NotReady with a reporting kubelet is reachable")
                .isFalse();
    }
}
