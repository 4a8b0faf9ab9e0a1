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
                Arguments.of("none left: detached", List.of(), noLimit, 0, Verdict.Detached.class, "names node w1"),
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
        Verdict v = VolumeDetach.decide("w1", onNode, options, DRAINED, POLL, DRAINED.plusSeconds(secondsAfter));
        assertThat(v).isInstanceOf(expected);
        String text = v instanceof Verdict.Detached d
                ? d.message()
                : v instanceof Verdict.Waiting w ? String.join(", ", w.waitingFor()) : ((Verdict.TimedOut) v).message();
        assertThat(text).contains(says);
        if (v instanceof Verdict.Waiting w) {
            assertThat(w.requeueAfter()).isLessThanOrEqualTo(POLL).isPositive();
        }
    }
}
