package dev.tenure.election;

import static dev.tenure.election.ElectorHarness.LD;
import static dev.tenure.election.ElectorHarness.LEASE;
import static dev.tenure.election.ElectorHarness.RP;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The elector's side of evidence of death, in virtual time: a contender takes a crashed holder's lease as soon as the
 * port shows the holder's process ended (a recorded change of holder), and waits out the lease as before whenever it
 * does not — no evidence, evidence of a holder that has written since, or coordinated election.
 */
class EvidenceOfDeathTest {
    final ElectorHarness h = new ElectorHarness(7);
    final ScriptedEvidence evidence = new ScriptedEvidence();
    final List<ProcessEnd.Reason> counted = new ArrayList<>();
    /** The holder and the contender of the tests that start them with {@link #aLeadsWhileBWatches}. */
    LeaderElector a;

    LeaderElector b;

    /** Answers what the test says, for the holder it names; notifies like a pod informer would. */
    static final class ScriptedEvidence implements ProcessEvidence {
        final AtomicReference<ProcessEnd> answer = new AtomicReference<>(new ProcessEnd.Unknown("kubelet silent"));
        final List<Runnable> listeners = new ArrayList<>();
        final List<String> tookOverFrom = new ArrayList<>();
        int judged;

        @Override
        public ProcessEnd judge(LeaseKey lease, LeaseRecord held) {
            judged++;
            return answer.get();
        }

        @Override
        public AutoCloseable onChange(Runnable changed) {
            listeners.add(changed);
            return () -> listeners.remove(changed);
        }

        @Override
        public void tookOver(LeaseKey lease, LeaseRecord previous, LeaseRecord taken, ProcessEnd.Ended why) {
            tookOverFrom.add(previous.holderIdentity() + "->" + taken.holderIdentity() + " " + why.reason());
        }

        void kubeletReports(ProcessEnd verdict) {
            answer.set(verdict);
            listeners.forEach(Runnable::run);
        }
    }

    static ProcessEnd.Ended killed() {
        Instant t = Instant.parse("2026-01-01T00:00:00Z");
        return new ProcessEnd.Ended(
                "tenure-system/a-pod",
                new ContainerEnd("tenure-operator", "containerd://1", t, t.plusSeconds(9), 137, "Error"),
                ProcessEnd.Reason.FAILED);
    }

    LeaderElector contender(boolean coordinated) {
        return h.builder("b", Duration.ZERO)
                .coordinated(coordinated)
                .processEvidence(evidence)
                .metrics(new ElectionMetrics() {
                    @Override
                    public void tookOverOnEvidence(LeaseKey lease, ProcessEnd.Reason reason) {
                        counted.add(reason);
                    }
                })
                .build();
    }

    /** The holder, a, leads; b, a contender reading {@link #evidence}, has watched a's lease for three retry periods. */
    void aLeadsWhileBWatches(boolean coordinated) {
        a = h.start("a", Duration.ZERO);
        h.scheduler.runDue();
        b = contender(coordinated);
        b.start();
        h.scheduler.advance(RP.multipliedBy(3));
    }

    /**
     * b holds the lease by one recorded change of holder after {@code transitions}, taken over on the evidence of a's
     * failed process (counted once, reported once); returns the lease as stored.
     */
    LeaseRecord assertTakenOverOnEvidence(int transitions) {
        LeaseRecord rec = h.store.peek(LEASE).orElseThrow();
        assertThat(rec.holderIdentity()).isEqualTo("b");
        assertThat(rec.leaseTransitions()).as("one recorded change of holder").isEqualTo(transitions + 1);
        assertThat(counted).containsExactly(ProcessEnd.Reason.FAILED);
        assertThat(evidence.tookOverFrom).containsExactly("a->b FAILED");
        return rec;
    }

    /** Stops both electors that still run; no work of a and b overlapped. */
    void closeWithoutOverlap() {
        h.closeOpen(List.of(a, b));
        assertThat(h.overlaps()).isEmpty();
    }

    @Test
    void takesOverAtOnceWhenTheHoldersProcessIsReportedEnded() {
        aLeadsWhileBWatches(false);
        int transitions = h.store.peek(LEASE).orElseThrow().leaseTransitions();
        a.stopWithoutRelease(); // kill -9
        h.scheduler.advance(Duration.ofSeconds(1));
        assertThat(b.isLeader()).as("no evidence yet: b waits").isFalse();

        evidence.kubeletReports(killed());
        h.scheduler.runDue();

        assertThat(b.isLeader()).isTrue();
        assertTakenOverOnEvidence(transitions);
        closeWithoutOverlap();
    }

    @Test
    void aTakeoverWhoseAnswerIsLostIsOursWhenItLanded() {
        // OperatorChaosIT kill trial 2052072381872521 at load 30: b's takeover PUT landed (200) but its answer came
        // after the attempt's budget; b then took the record naming it for a stranger's and waited it out (6 s)
        aLeadsWhileBWatches(false);
        int transitions = h.store.peek(LEASE).orElseThrow().leaseTransitions();
        a.stopWithoutRelease(); // kill -9
        boolean[] lost = {false};
        String[] lostVersion = {null};
        h.store.intercept(new InMemoryLeaseStore.Interceptor() {
            @Override
            public void after(InMemoryLeaseStore.Op op, LeaseKey key) {
                if (op == InMemoryLeaseStore.Op.UPDATE && !lost[0]) {
                    lost[0] = true;
                    lostVersion[0] = h.store.peek(LEASE).orElseThrow().resourceVersion();
                    throw new LeaseStoreFailure(key, 0, "no answer within the attempt's budget (injected)", null);
                }
            }
        });
        evidence.kubeletReports(killed());
        h.scheduler.runDue();
        assertThat(lost[0]).as("the takeover was written and its answer lost").isTrue();
        assertThat(h.store.peek(LEASE).orElseThrow().holderIdentity()).isEqualTo("b");
        h.scheduler.advance(RP.multipliedBy(3));

        assertThat(b.isLeader()).as("b's own landed takeover is not waited out").isTrue();
        LeaseRecord rec = assertTakenOverOnEvidence(transitions);
        assertThat(rec.resourceVersion())
                .as("the term began on a renew of the landed record, whose answer b saw")
                .isNotEqualTo(lostVersion[0]);
        closeWithoutOverlap();
    }

    @Test
    void aLostTakeoverAnswerAdoptsNothingWhenAnotherWriteCameFirst() {
        // the takeover got no answer and did not land (the holder was alive and renewed): nothing is b's
        aLeadsWhileBWatches(false);
        boolean[] lost = {false};
        h.store.intercept(new InMemoryLeaseStore.Interceptor() {
            @Override
            public void before(InMemoryLeaseStore.Op op, LeaseKey key) {
                if (op == InMemoryLeaseStore.Op.UPDATE
                        && evidence.answer.get() instanceof ProcessEnd.Ended
                        && !lost[0]) {
                    lost[0] = true;
                    throw new LeaseStoreFailure(key, 0, "no answer within the attempt's budget (injected)", null);
                }
            }
        });
        evidence.kubeletReports(killed()); // a stale verdict: a is alive
        h.scheduler.runDue();
        evidence.answer.set(new ProcessEnd.Unknown("kubelet silent"));
        h.scheduler.advance(LD.multipliedBy(2));
        assertThat(lost[0]).isTrue();
        assertThat(a.isLeader()).isTrue();
        assertThat(b.isLeader()).isFalse();
        assertThat(h.store.peek(LEASE).orElseThrow().holderIdentity()).isEqualTo("a");
        assertThat(counted).isEmpty();
        closeWithoutOverlap();
    }

    @Test
    void evidenceFoundOnARetryIsUsedToo() {
        aLeadsWhileBWatches(false);
        a.stopWithoutRelease();
        evidence.answer.set(killed()); // no notification: b finds it on its next try
        h.scheduler.advance(RP.multipliedBy(3));
        assertThat(b.isLeader()).isTrue();
    }

    @Test
    void withoutEvidenceTheLeaseIsWaitedOut() {
        aLeadsWhileBWatches(false);
        a.stopWithoutRelease();
        Instant crashed = h.scheduler.now();
        evidence.kubeletReports(new ProcessEnd.Unknown("pod not found"));
        h.scheduler.advance(LD.minus(RP));
        assertThat(b.isLeader()).isFalse();
        assertThat(evidence.judged)
                .as("asked on the notification and on retries")
                .isGreaterThan(1);
        h.scheduler.advance(RP.multipliedBy(3));
        assertThat(b.isLeader()).isTrue();
        assertThat(h.store.peek(LEASE).orElseThrow().acquireTime())
                .isAfter(crashed.plus(LD).minus(RP));
        assertThat(counted).isEmpty();
    }

    @Test
    void evidenceAboutAVersionTheHolderHasSinceRenewedTakesNothing() {
        // b judged the record it last saw; the holder renewed meanwhile (it was alive): the conditional write fails
        LeaderElector a = h.start("a", Duration.ZERO);
        h.scheduler.runDue();
        LeaderElector b = contender(false);
        boolean[] renewedUnseen = {false};
        h.store.intercept(new InMemoryLeaseStore.Interceptor() {
            @Override
            public void before(InMemoryLeaseStore.Op op, LeaseKey key) {
                if (op == InMemoryLeaseStore.Op.UPDATE && evidence.judged > 0 && !renewedUnseen[0]) {
                    renewedUnseen[0] = true;
                    LeaseRecord cur = h.store.peek(LEASE).orElseThrow();
                    h.store.putUnwatched(LEASE, cur.withRenewTime(h.scheduler.now()));
                }
            }
        });
        b.start();
        h.scheduler.runDue();
        evidence.kubeletReports(killed());
        h.scheduler.runDue();
        assertThat(renewedUnseen[0]).isTrue();
        assertThat(b.isLeader()).isFalse();
        assertThat(h.store.peek(LEASE).orElseThrow().holderIdentity()).isEqualTo("a");
        assertThat(counted).isEmpty();
        a.stopWithoutRelease();
    }

    @Test
    void aCoordinatedCandidateNeverTakesOverOnEvidence() {
        aLeadsWhileBWatches(true);
        a.stopWithoutRelease();
        evidence.kubeletReports(killed());
        h.scheduler.advance(LD.multipliedBy(2));
        assertThat(b.isLeader()).isFalse();
        assertThat(evidence.judged).isZero();
    }
}
