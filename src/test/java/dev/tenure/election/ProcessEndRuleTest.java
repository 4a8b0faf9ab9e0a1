package dev.tenure.election;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Evidence of death, the pure rule: one row per way a pod's status can look while the holder's lease runs. Only the
 * rows where the run that was running at the holder's clock reading has ended are evidence; a status of an earlier
 * container, a status older than the acquisition, a later container, another pod under the same name, a missing pod
 * or binding all wait out the lease.
 */
class ProcessEndRuleTest {
    static final String HOLDER = "tenure-operator-7d9f-abcde_k2b4f";
    static final Instant T0 = Instant.parse("2026-01-01T10:00:00Z");
    /** The holder's container run started at T0; it first wrote as holder 3.4 s later and acquired then. */
    static final Instant SINCE = T0.plusMillis(3_400);

    static final HolderProcess BINDING =
            new HolderProcess(HOLDER, "tenure-system", "tenure-operator-7d9f-abcde", "uid-1", "tenure-operator", SINCE);
    static final LeaseRecord HELD = LeaseRecord.heldBy(HOLDER, Duration.ofSeconds(15), SINCE)
            .withRenewTime(SINCE.plusSeconds(30))
            .withLeaseTransitions(4);

    static ContainerEnd run(String id, Instant started, Instant finished, int exit, String reason) {
        return new ContainerEnd("tenure-operator", id, started, finished, exit, reason);
    }

    static PodReport pod(ContainerEnd... ended) {
        return new PodReport("tenure-system", "tenure-operator-7d9f-abcde", "uid-1", List.of(ended));
    }

    static Stream<Arguments> rows() {
        Instant later = SINCE.plusSeconds(40); // whole seconds, as the API keeps them
        return Stream.of(
                // --- evidence
                Arguments.of(
                        "killed (kill -9): state.terminated of the run that was running",
                        Optional.of(BINDING),
                        Optional.of(pod(run("containerd://c2", T0, later, 137, "Error"))),
                        ProcessEnd.Reason.FAILED),
                Arguments.of(
                        "OOM-killed",
                        Optional.of(BINDING),
                        Optional.of(pod(run("containerd://c2", T0, later, 137, "OOMKilled"))),
                        ProcessEnd.Reason.OOM_KILLED),
                Arguments.of(
                        "restarted: the holder's run in lastState, a newer run in state",
                        Optional.of(BINDING),
                        Optional.of(pod(run("containerd://c2", T0, later, 1, "Error"))),
                        ProcessEnd.Reason.FAILED),
                Arguments.of(
                        "exited with 0",
                        Optional.of(BINDING),
                        Optional.of(pod(run("containerd://c2", T0, later, 0, "Completed"))),
                        ProcessEnd.Reason.EXITED),
                // --- no evidence: wait out the lease
                Arguments.of("pod missing (deleted, force-deleted)", Optional.of(BINDING), Optional.empty(), null),
                Arguments.of(
                        "pod running, kubelet silent (node NotReady, kubelet down, process hung)",
                        Optional.of(BINDING),
                        Optional.of(pod()),
                        null),
                Arguments.of(
                        "a status of an earlier container of the same pod (lastState before the holder's run)",
                        Optional.of(BINDING),
                        Optional.of(pod(run("containerd://c1", T0.minusSeconds(60), T0, 137, "OOMKilled"))),
                        null),
                Arguments.of(
                        "an earlier run that ended in the second the holder's clock read",
                        Optional.of(BINDING),
                        Optional.of(pod(run("containerd://c1", T0.minusSeconds(60), SINCE.minusMillis(400), 1, null))),
                        null),
                Arguments.of(
                        "a status older than the lease's acquisition (terminated before the holder acquired)",
                        Optional.of(BINDING.withSince(T0.plusSeconds(2))),
                        Optional.of(pod(run("containerd://c2", T0, T0.plusSeconds(3), 1, "Error"))),
                        null),
                Arguments.of(
                        "a later container of the same pod (started after the holder's reading)",
                        Optional.of(BINDING),
                        Optional.of(pod(run("containerd://c3", SINCE.plusSeconds(5), later, 1, "Error"))),
                        null),
                Arguments.of(
                        "a run that started within the same second as the reading (could be the next run)",
                        Optional.of(BINDING.withSince(T0.plusMillis(500))),
                        Optional.of(pod(run("containerd://c2", T0, later, 1, "Error"))),
                        null),
                Arguments.of(
                        "the kubelet's placeholder for a container it could not find (no ID, no times)",
                        Optional.of(BINDING),
                        Optional.of(pod(run(null, null, null, 137, "ContainerStatusUnknown"))),
                        null),
                Arguments.of(
                        "another container of the pod (a sidecar) ended",
                        Optional.of(BINDING),
                        Optional.of(pod(new ContainerEnd("sidecar", "containerd://s1", T0, later, 1, "Error"))),
                        null),
                Arguments.of(
                        "the same pod name, another pod (deleted and created again)",
                        Optional.of(BINDING),
                        Optional.of(new PodReport(
                                "tenure-system",
                                "tenure-operator-7d9f-abcde",
                                "uid-2",
                                List.of(run("containerd://c9", T0, later, 137, "Error")))),
                        null),
                Arguments.of(
                        "no binding (a replica that writes none)",
                        Optional.empty(),
                        Optional.of(pod(run("containerd://c2", T0, later, 137, "Error"))),
                        null),
                Arguments.of(
                        "a binding left by an earlier holder",
                        Optional.of(new HolderProcess(
                                "tenure-operator-7d9f-abcde_zzzzz",
                                "tenure-system",
                                "tenure-operator-7d9f-abcde",
                                "uid-1",
                                "tenure-operator",
                                SINCE)),
                        Optional.of(pod(run("containerd://c2", T0, later, 137, "Error"))),
                        null),
                Arguments.of(
                        "a binding without a clock reading",
                        Optional.of(BINDING.withSince(null)),
                        Optional.of(pod(run("containerd://c2", T0, later, 137, "Error"))),
                        null));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void evidenceOnlyWhenTheRunThatHeldTheLeaseEnded(
            String name, Optional<HolderProcess> binding, Optional<PodReport> pod, ProcessEnd.Reason expected) {
        ProcessEnd verdict = ProcessEndRule.judge(HELD, binding, pod);
        if (expected == null) {
            assertThat(verdict).as(name).isInstanceOf(ProcessEnd.Unknown.class);
        } else {
            assertThat(verdict)
                    .as(name)
                    .isInstanceOfSatisfying(
                            ProcessEnd.Ended.class, e -> assertThat(e.reason()).isEqualTo(expected));
        }
    }

    @Test
    void aRunThatEndedBeforeTheAcquisitionIsNotTheHoldersEvenWhenItContainsTheReading() {
        // an identity kept across restarts (configured) keeps the first acquireTime: the binding's reading is the
        // newer process's, but a run must also have outlived the acquisition
        LeaseRecord acquiredLater = HELD.withAcquireTime(T0.plusSeconds(20));
        ProcessEnd verdict = ProcessEndRule.judge(
                acquiredLater,
                Optional.of(BINDING),
                Optional.of(pod(run("containerd://c2", T0, T0.plusSeconds(10), 137, "Error"))));
        assertThat(verdict).isInstanceOf(ProcessEnd.Unknown.class);
    }

    @Test
    void theBindingReadsBackAsWritten() {
        HolderProcess withSpaces = new HolderProcess("a holder with spaces", "ns", "pod-1", "u-1", "c", SINCE);
        assertThat(HolderProcess.parse(withSpaces.format())).contains(withSpaces);
        assertThat(HolderProcess.parse(BINDING.withSince(null).format())).contains(BINDING.withSince(null));
        assertThat(HolderProcess.parse("tenure/some-pod")).isEmpty();
        assertThat(HolderProcess.parse(null)).isEmpty();
    }

    @Test
    void takeOverOnEvidenceIsAChangeOfHolderOnlyForAnotherLiveLease() {
        ProcessEnd ended = ProcessEndRule.judge(
                HELD,
                Optional.of(BINDING),
                Optional.of(pod(run("containerd://c2", T0, SINCE.plusSeconds(40), 137, "Error"))));
        Instant now = SINCE.plusSeconds(41);
        LeaseRecord taken = LeaseRules.takeOverOnEvidence("b", HELD, ended, now, Duration.ofSeconds(15))
                .orElseThrow();
        assertThat(taken.holderIdentity()).isEqualTo("b");
        assertThat(taken.leaseTransitions()).isEqualTo(HELD.leaseTransitions() + 1);
        assertThat(taken.acquireTime()).isEqualTo(now);
        assertThat(LeaseRules.takeOverOnEvidence("b", HELD, new ProcessEnd.Unknown("x"), now, Duration.ofSeconds(15)))
                .isEmpty();
        assertThat(LeaseRules.takeOverOnEvidence(HOLDER, HELD, ended, now, Duration.ofSeconds(15)))
                .as("a record naming us: an earlier process under our name")
                .isEmpty();
        assertThat(LeaseRules.takeOverOnEvidence(
                        "b", HELD.withDeletionRequested(true), ended, now, Duration.ofSeconds(15)))
                .isEmpty();
        assertThat(LeaseRules.takeOverOnEvidence(
                        "b", HELD.withPreferredHolder("c"), ended, now, Duration.ofSeconds(15)))
                .isEmpty();
    }
}
