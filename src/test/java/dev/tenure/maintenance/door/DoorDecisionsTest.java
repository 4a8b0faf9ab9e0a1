package dev.tenure.maintenance.door;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.maintenance.admission.MaintenanceLimits;
import dev.tenure.maintenance.admission.NodeMaintenanceAdmission;
import dev.tenure.maintenance.api.HooksSpec;
import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.NodeMaintenanceSpec;
import dev.tenure.maintenance.api.NodeMaintenanceStatus;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.api.ScheduleSpec;
import dev.tenure.maintenance.door.DoorDecision.Event;
import dev.tenure.maintenance.machine.MaintenanceEvents;
import dev.tenure.maintenance.machine.MaintenanceHooks;
import dev.tenure.maintenance.machine.MaintenanceState;
import dev.tenure.maintenance.machine.NodeMaintenanceStatuses;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The door's one decision per reconcile and per cleanup, row by row, without a cluster: what was observed in, the
 * {@link DoorDecision} (its kind, the status to write, the events, the next look) out.
 */
class DoorDecisionsTest {

    static final Instant NOW = Instant.parse("2026-11-26T10:00:00Z");
    static final Duration QUEUE_LOOK = Duration.ofSeconds(30);
    static final Duration RENEW = Duration.ofSeconds(10);
    static final DoorDecisions.Rules RULES =
            new DoorDecisions.Rules(MaintenanceLimits.none(), QUEUE_LOOK, RENEW, "node-");
    static final DoorDecisions.Rules CAP_ONE = new DoorDecisions.Rules(
            new MaintenanceLimits(OptionalInt.of(1), OptionalInt.empty()), QUEUE_LOOK, RENEW, "node-");
    static final Node W1 =
            new NodeBuilder().withNewMetadata().withName("w1").endMetadata().build();

    static NodeMaintenance nm(String name, String node, Consumer<NodeMaintenanceSpec> spec) {
        NodeMaintenance nm = new NodeMaintenance();
        nm.setMetadata(new ObjectMetaBuilder()
                .withName(name)
                .withGeneration(1L)
                .withCreationTimestamp("2026-11-26T09:00:00Z")
                .withAnnotations(new HashMap<>())
                .build());
        NodeMaintenanceSpec s = new NodeMaintenanceSpec();
        s.setNodeName(node);
        spec.accept(s);
        nm.setSpec(s);
        return nm;
    }

    /** A maintenance that holds {@code node}: Running, pinned, its lease held since an hour ago. */
    static NodeMaintenance holding(String name, String node) {
        NodeMaintenance nm = nm(name, node, s -> {});
        NodeMaintenanceStatus st = new NodeMaintenanceStatus();
        st.setPhase(Phase.Running);
        st.setNodeName(node);
        st.setObservedGeneration(1L);
        st.getConditions()
                .add(new ConditionBuilder()
                        .withType(NodeMaintenanceStatuses.LEASE_HELD)
                        .withStatus("True")
                        .withLastTransitionTime("2026-11-26T09:00:00Z")
                        .build());
        nm.setStatus(st);
        return nm;
    }

    static NodeMaintenance withStatus(NodeMaintenance nm, Consumer<NodeMaintenanceStatus> edit) {
        NodeMaintenanceStatus st = nm.getStatus() == null ? new NodeMaintenanceStatus() : nm.getStatus();
        edit.accept(st);
        nm.setStatus(st);
        return nm;
    }

    /** The only control-plane node of its cluster: its budget (a majority of one) never lets it go. */
    static final Node CP1 = new NodeBuilder()
            .withNewMetadata()
            .withName("cp1")
            .addToLabels("node-role.kubernetes.io/control-plane", "")
            .endMetadata()
            .build();

    static final String CP1_HELD = NodeMaintenanceAdmission.BLOCKED_NOTE
            + "control-plane budget: node cp1 is a control-plane node; with it in maintenance 0 of 1 control-plane"
            + " node(s) would stay available, but 1 must (a majority, for etcd quorum)";

    /** What a reconcile of {@code nm} observes: the cluster view when the admission asks for one. */
    static DoorDecision.Observed observed(NodeMaintenance nm, Optional<Node> node, List<NodeMaintenance> others) {
        return observed(nm, node, List.of(), others);
    }

    /** The same on a cluster whose Nodes, as the door lists them when the limits need them, are {@code nodes}. */
    static DoorDecision.Observed observed(
            NodeMaintenance nm, Optional<Node> node, List<Node> nodes, List<NodeMaintenance> others) {
        MaintenanceState state = NodeMaintenanceStatuses.toState(nm.getStatus());
        NodeMaintenanceAdmission.Standing standing = NodeMaintenanceAdmission.standing(nm, state, "node-");
        List<NodeMaintenance> all = new ArrayList<>(others);
        all.add(nm);
        Optional<NodeMaintenanceAdmission.ClusterReads> view = standing.needsClusterView()
                ? Optional.of(new NodeMaintenanceAdmission.ClusterReads(node, nodes, all, Map.of()))
                : Optional.empty();
        List<NodeMaintenance> sameNode = all.stream()
                .filter(o -> standing.nodeName() != null
                        && (standing.nodeName().equals(o.getSpec().getNodeName())
                                || (o.getStatus() != null
                                        && standing.nodeName()
                                                .equals(o.getStatus().getNodeName()))))
                .toList();
        return new DoorDecision.Observed(
                nm, state, standing, view, sameNode, all, nm.getMetadata().getAnnotations(), NOW, true);
    }

    static Stream<Arguments> reconciles() {
        NodeMaintenance scheduled = nm("m", "w1", s -> {
            ScheduleSpec at = new ScheduleSpec();
            at.setStartAt("2026-11-27T10:00:00Z");
            s.setSchedule(at);
        });
        return Stream.of(
                row(
                        "new, its node exists: advance, admitted with the node as read, nothing said yet",
                        RULES,
                        observed(nm("m", "w1", s -> {}), Optional.of(W1), List.of()),
                        d -> assertThat(d).isInstanceOfSatisfying(DoorDecision.Advance.class, a -> {
                            assertThat(a.nodeName()).isEqualTo("w1");
                            assertThat(a.node()).contains(W1);
                            assertThat(a.sharedWith()).isEmpty();
                            assertThat(a.moveEvent()).isEmpty();
                        })),
                row(
                        "new, no such node: refused, phase Failed, a Warning, no look again",
                        RULES,
                        observed(nm("m", "w9", s -> {}), Optional.empty(), List.of()),
                        d -> assertThat(d).isInstanceOfSatisfying(DoorDecision.Refuse.class, r -> {
                            assertThat(r.status().getPhase()).isEqualTo(Phase.Failed);
                            assertThat(r.status().getLastError()).isEqualTo("spec.nodeName: node w9 not found");
                            assertThat(r.events())
                                    .containsExactly(new Event(
                                            true, MaintenanceEvents.FAILED, "spec.nodeName: node w9 not found"));
                            assertThat(r.look()).isEmpty();
                        })),
                row(
                        "refused before, spec not edited since: unchanged",
                        RULES,
                        observed(
                                withStatus(nm("m", "w9", s -> {}), st -> {
                                    st.setPhase(Phase.Failed);
                                    st.setObservedGeneration(1L);
                                }),
                                Optional.empty(),
                                List.of()),
                        d -> assertThat(d).isInstanceOf(DoorDecision.Unchanged.class)),
                row(
                        "held node refused (spec edited into a bad one): it keeps renewing, so it looks again",
                        RULES,
                        observed(badWindow(holding("m", "w1")), Optional.empty(), List.of()),
                        d -> assertThat(d).isInstanceOfSatisfying(DoorDecision.Refuse.class, r -> {
                            assertThat(r.status().getNodeName()).isEqualTo("w1");
                            assertThat(r.look()).contains(RENEW);
                        })),
                row(
                        "the cap reached: held Pending at place 1, Queued said, looked at again",
                        CAP_ONE,
                        observed(nm("m", "w1", s -> {}), Optional.of(W1), List.of(holding("first", "w2"))),
                        d -> assertThat(d).isInstanceOfSatisfying(DoorDecision.Hold.class, h -> {
                            assertThat(h.status().getPhase()).isEqualTo(Phase.Pending);
                            assertThat(h.status().getQueuePosition()).isEqualTo(1);
                            assertThat(h.events()).extracting(Event::reason).containsExactly(MaintenanceEvents.QUEUED);
                            assertThat(h.look()).contains(QUEUE_LOOK);
                        })),
                row(
                        "held at the same place as last time: nothing said again",
                        CAP_ONE,
                        observed(
                                withStatus(nm("m", "w1", s -> {}), st -> {
                                    st.setPhase(Phase.Pending);
                                    st.setQueuePosition(1);
                                }),
                                Optional.of(W1),
                                List.of(holding("first", "w2"))),
                        d -> assertThat(d)
                                .isInstanceOfSatisfying(
                                        DoorDecision.Hold.class,
                                        h -> assertThat(h.events()).isEmpty())),
                row(
                        "the only control-plane node, its budget never lets it go: Pending, no place in the queue,"
                                + " NotAdmissible said as a Warning, looked at again",
                        CAP_ONE,
                        observed(cpRequest(), Optional.of(CP1), List.of(CP1, W1), List.of()),
                        d -> assertThat(d).isInstanceOfSatisfying(DoorDecision.Hold.class, h -> {
                            assertThat(h.status().getPhase()).isEqualTo(Phase.Pending);
                            assertThat(h.status().getQueuePosition()).isNull();
                            assertThat(h.status().getLastError()).isEqualTo(CP1_HELD);
                            assertThat(h.events())
                                    .containsExactly(new Event(true, MaintenanceEvents.NOT_ADMISSIBLE, CP1_HELD));
                            assertThat(h.look()).contains(QUEUE_LOOK);
                        })),
                row(
                        "held by its own budget as last time: nothing said again",
                        CAP_ONE,
                        observed(
                                withStatus(cpRequest(), st -> {
                                    st.setPhase(Phase.Pending);
                                    st.setLastError(CP1_HELD);
                                }),
                                Optional.of(CP1),
                                List.of(CP1, W1),
                                List.of()),
                        d -> assertThat(d)
                                .isInstanceOfSatisfying(
                                        DoorDecision.Hold.class,
                                        h -> assertThat(h.events()).isEmpty())),
                row(
                        "a worker behind a control-plane request its own budget holds, the slot free: advance",
                        CAP_ONE,
                        observed(nm("m", "w1", s -> {}), Optional.of(W1), List.of(CP1, W1), List.of(cpRequest())),
                        d -> assertThat(d).isInstanceOf(DoorDecision.Advance.class)),
                row(
                        "a preview of its node created first: no duplicate, advance",
                        RULES,
                        observed(
                                later(nm("m", "w1", s -> {})),
                                Optional.of(W1),
                                List.of(nm("preview", "w1", s -> s.setPreview(true)))),
                        d -> assertThat(d).isInstanceOf(DoorDecision.Advance.class)),
                row(
                        "spec.join beside only a preview of its node: a fresh request, advance as the node's owner",
                        RULES,
                        observed(
                                later(nm("j", "w1", s -> s.setJoin(true))),
                                Optional.of(W1),
                                List.of(nm("preview", "w1", s -> s.setPreview(true)))),
                        d -> assertThat(d).isInstanceOf(DoorDecision.Advance.class)),
                row(
                        "spec.schedule.startAt tomorrow: Scheduled, its next start shown, looked at in 10 minutes",
                        RULES,
                        observed(scheduled, Optional.of(W1), List.of()),
                        d -> assertThat(d).isInstanceOfSatisfying(DoorDecision.Scheduled.class, s -> {
                            assertThat(s.status().getPhase()).isEqualTo(Phase.Scheduled);
                            assertThat(s.status().getSchedule().getNextStart()).isEqualTo("2026-11-27T10:00:00Z");
                            assertThat(s.events())
                                    .extracting(Event::reason)
                                    .containsExactly(MaintenanceEvents.SCHEDULED);
                            assertThat(s.look()).contains(Duration.ofMinutes(10));
                        })),
                row(
                        "spec.preview, not started: a preview of its node, nothing admitted",
                        RULES,
                        observed(nm("m", "w1", s -> s.setPreview(true)), Optional.of(W1), List.of()),
                        d -> assertThat(d).isEqualTo(new DoorDecision.Preview(MaintenanceState.initial(), "w1", 1L))),
                row(
                        "spec.join beside the node's owner: joins it, status.joinedTo, Joined said",
                        RULES,
                        observed(nm("j", "w1", s -> s.setJoin(true)), Optional.of(W1), List.of(holding("owner", "w1"))),
                        d -> assertThat(d).isInstanceOfSatisfying(DoorDecision.Join.class, j -> {
                            assertThat(j.status().getJoinedTo()).isEqualTo("owner");
                            assertThat(j.status().getSharedWith()).containsExactly("owner");
                            assertThat(j.status().getPhase()).isEqualTo(Phase.Running);
                            assertThat(j.events()).extracting(Event::reason).containsExactly(MaintenanceEvents.JOINED);
                            assertThat(j.look()).contains(QUEUE_LOOK);
                        })),
                row(
                        "joined, and its owner is gone: leaves the share, Pending, goes ahead on its own soon",
                        RULES,
                        observed(
                                withStatus(nm("j", "w1", s -> s.setJoin(true)), st -> {
                                    st.setPhase(Phase.Running);
                                    st.setNodeName("w1");
                                    st.setJoinedTo("owner");
                                }),
                                Optional.of(W1),
                                List.of()),
                        d -> assertThat(d).isInstanceOfSatisfying(DoorDecision.LeaveShare.class, l -> {
                            assertThat(l.status().getPhase()).isEqualTo(Phase.Pending);
                            assertThat(l.status().getJoinedTo()).isNull();
                            assertThat(l.events())
                                    .extracting(Event::reason)
                                    .containsExactly(MaintenanceEvents.SHARE_ENDED);
                            assertThat(l.look()).contains(DoorDecisions.MIN_LOOK);
                        })),
                row(
                        "holds its node, a joiner beside it: advance, the joiner in status.sharedWith",
                        RULES,
                        observed(holding("owner", "w1"), Optional.empty(), List.of(joined("j", "owner", "w1"))),
                        d -> assertThat(d)
                                .isInstanceOfSatisfying(
                                        DoorDecision.Advance.class,
                                        a -> assertThat(a.sharedWith()).containsExactly("j"))));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("reconciles")
    void decidesOnceWhatAReconcileDoes(
            String name, DoorDecisions.Rules rules, DoorDecision.Observed o, Consumer<DoorDecision> expected) {
        expected.accept(DoorDecisions.decide(o, rules));
    }

    /** {@code o} with a status this reconciler did not write (another client's, a backup's, an earlier instance's). */
    static DoorDecision.Observed foreign(DoorDecision.Observed o) {
        return new DoorDecision.Observed(
                o.nm(),
                o.state(),
                o.standing(),
                o.view(),
                o.sameNode(),
                o.cached(),
                o.hookAnnotations(),
                o.now(),
                false);
    }

    /**
     * {@code nm}, whose status another client patched, as the door observes it once the node leases pinned it to
     * {@code pinned} ({@link PinnedNode}); {@code leaseOurs}: we hold that node's lease for it.
     */
    static DoorDecision.Observed pinnedByLease(NodeMaintenance nm, String pinned, boolean leaseOurs) {
        MaintenanceState state = NodeMaintenanceStatuses.toState(nm.getStatus());
        return new DoorDecision.Observed(
                nm,
                state,
                NodeMaintenanceAdmission.standing(nm, state, Optional.of(pinned)),
                Optional.empty(),
                List.of(),
                List.of(nm),
                nm.getMetadata().getAnnotations(),
                NOW,
                false,
                leaseOurs);
    }

    /** The maintenance of w1, running, its status patched by another client: {@code edit} of it, nodeName w5. */
    static NodeMaintenance foreignW5(Consumer<NodeMaintenanceStatus> edit) {
        return withStatus(holding("m", "w1"), st -> {
            st.setNodeName("w5");
            st.setQueuePosition(50);
            edit.accept(st);
        });
    }

    /** Refused for good, its status saying {@code lastError} (null: none). */
    static NodeMaintenance refusedForGood(Consumer<NodeMaintenanceSpec> spec, String lastError) {
        return withStatus(nm("m", "w1", spec), st -> {
            st.setPhase(Phase.Failed);
            st.setObservedGeneration(1L);
            st.setLastError(lastError);
        });
    }

    @Test
    void aRefusalStaysFinalAndANotOwnStatusIsWrittenBackWithItsReason() {
        Consumer<NodeMaintenanceSpec> zeroTimeout = s -> s.setHooks(new HooksSpec("0s"));
        assertThat(DoorDecisions.decide(observed(refusedForGood(zeroTimeout, ""), Optional.empty(), List.of()), RULES))
                .as("our own refusal: nothing read, nothing written")
                .isInstanceOf(DoorDecision.Unchanged.class);

        assertThat(DoorDecisions.decide(
                        foreign(observed(refusedForGood(zeroTimeout, ""), Optional.empty(), List.of())), RULES))
                .as("a foreign status without the reason: the spec's refusal written back, said again")
                .isInstanceOfSatisfying(DoorDecision.Refuse.class, r -> {
                    assertThat(r.status().getPhase()).isEqualTo(Phase.Failed);
                    assertThat(r.status().getLastError()).startsWith("spec.hooks.timeout: must be more than 0");
                    assertThat(r.events()).extracting(Event::reason).containsExactly(MaintenanceEvents.FAILED);
                });
        assertThat(DoorDecisions.decide(
                        foreign(observed(
                                refusedForGood(zeroTimeout, "restored from backup"), Optional.empty(), List.of())),
                        RULES))
                .as("a foreign reason the spec contradicts is replaced")
                .isInstanceOfSatisfying(
                        DoorDecision.Refuse.class,
                        r -> assertThat(r.status().getLastError()).startsWith("spec.hooks.timeout"));
        assertThat(DoorDecisions.decide(
                        foreign(observed(refusedForGood(s -> {}, "node w1 not found"), Optional.empty(), List.of())),
                        RULES))
                .as("a refusal by the cluster (after a restart): still final, its reason kept, said once")
                .isInstanceOfSatisfying(DoorDecision.Refuse.class, r -> {
                    assertThat(r.status().getPhase()).isEqualTo(Phase.Failed);
                    assertThat(r.status().getLastError()).isEqualTo("node w1 not found");
                    assertThat(r.events()).isEmpty();
                });
        assertThat(DoorDecisions.decide(
                        foreign(observed(refusedForGood(s -> {}, ""), Optional.empty(), List.of())), RULES))
                .as("no reason left to keep: not admitted, and said why")
                .isInstanceOfSatisfying(
                        DoorDecision.Refuse.class,
                        r -> assertThat(r.status().getLastError()).isEqualTo(NodeMaintenanceAdmission.REFUSED_EARLIER));
    }

    static Stream<Arguments> cleanups() {
        NodeMaintenance hooked = holding("owner", "w1");
        hooked.getMetadata().getAnnotations().put(MaintenanceHooks.PRE_UNCORDON_PREFIX + "storage", "");
        NodeMaintenance lost = nm("lost", "w1", s -> {}); // a status wiped by another client: no record it held w1
        NodeMaintenance owner = holding("owner", "w1");
        NodeMaintenance refused = withStatus(nm("m", "w1", s -> {}), st -> st.setPhase(Phase.Failed));
        lost.getMetadata().getAnnotations().put(MaintenanceHooks.PRE_UNCORDON_PREFIX + "storage", "");
        return Stream.of(
                row(
                        "held its node, nothing else: end the maintenance, then forget it and its node",
                        RULES,
                        observed(owner, Optional.empty(), List.of()),
                        d -> assertThat(d).isInstanceOfSatisfying(DoorDecision.End.class, e -> {
                            assertThat(e.nodeName()).isEqualTo("w1");
                            assertThat(e.before()).isEmpty();
                            assertThat(e.forget())
                                    .as(
                                            "the node, the state its status shows (for the stage timers), the hooks timeout")
                                    .isEqualTo(new DoorDecision.Forgetting(
                                            "w1",
                                            Optional.of(NodeMaintenanceStatuses.toState(owner.getStatus())),
                                            MaintenanceHooks.DEFAULT_TIMEOUT));
                        })),
                row(
                        "held its node, a joiner remains: the node is kept, the wait said",
                        RULES,
                        observed(holding("owner", "w1"), Optional.empty(), List.of(joined("j", "owner", "w1"))),
                        d -> assertThat(d).isInstanceOfSatisfying(DoorDecision.KeepNode.class, k -> {
                            assertThat(k.status().getSharedWith()).containsExactly("j");
                            assertThat(k.events())
                                    .extracting(Event::reason)
                                    .containsExactly(MaintenanceEvents.SHARED_HOLD);
                            assertThat(k.look()).isEqualTo(QUEUE_LOOK);
                        })),
                row(
                        "held its node, a pre-uncordon hook on it: the node is kept, the wait in status.hooks",
                        RULES,
                        observed(hooked, Optional.empty(), List.of()),
                        d -> assertThat(d).isInstanceOfSatisfying(DoorDecision.KeepNode.class, k -> {
                            assertThat(k.status().getHooks().getWaitingFor()).containsExactly("storage");
                            assertThat(k.events())
                                    .extracting(Event::reason)
                                    .containsExactly(MaintenanceEvents.HOOKS_WAITING);
                        })),
                row(
                        "its status lost, a pre-uncordon hook on it: the undo is ours, so it waits for the hook too",
                        RULES,
                        observed(lost, Optional.empty(), List.of()),
                        d -> assertThat(d).isInstanceOfSatisfying(DoorDecision.KeepNode.class, k -> {
                            assertThat(k.status().getHooks().getWaitingFor()).containsExactly("storage");
                            assertThat(k.events())
                                    .extracting(Event::reason)
                                    .containsExactly(MaintenanceEvents.HOOKS_WAITING);
                        })),
                row(
                        "refused before it was admitted: nothing to undo, only forgotten",
                        RULES,
                        observed(refused, Optional.empty(), List.of(holding("first", "w1"))),
                        d -> assertThat(d)
                                .isEqualTo(new DoorDecision.Forget(
                                        "w1",
                                        new DoorDecision.Forgetting(
                                                "w1",
                                                Optional.of(NodeMaintenanceStatuses.toState(refused.getStatus())),
                                                MaintenanceHooks.DEFAULT_TIMEOUT)))),
                row(
                        "a foreign status names w5 and says Ended, LeaseHeld wiped; we hold w1's lease: w1 undone",
                        RULES,
                        pinnedByLease(
                                foreignW5(st -> {
                                    st.setPhase(Phase.Ended);
                                    st.setConditions(new ArrayList<>());
                                }),
                                "w1",
                                true),
                        d -> assertThat(d).isInstanceOfSatisfying(DoorDecision.End.class, e -> {
                            assertThat(e.nodeName()).isEqualTo("w1");
                            assertThat(e.forget().node()).isEqualTo("w1");
                        })),
                row(
                        "the same with no lease of ours: nothing in evidence to undo, only forgotten",
                        RULES,
                        pinnedByLease(
                                foreignW5(st -> {
                                    st.setPhase(Phase.Ended);
                                    st.setConditions(new ArrayList<>());
                                }),
                                "w1",
                                false),
                        d -> assertThat(d).isInstanceOf(DoorDecision.Forget.class)),
                row(
                        "a foreign status names w5 and says Waiting; we hold w1's lease: w1 undone",
                        RULES,
                        pinnedByLease(
                                foreignW5(st -> {
                                    st.setPhase(Phase.Waiting);
                                    st.setConditions(new ArrayList<>());
                                }),
                                "w1",
                                true),
                        d -> assertThat(d)
                                .isInstanceOfSatisfying(
                                        DoorDecision.End.class,
                                        e -> assertThat(e.nodeName()).isEqualTo("w1"))),
                row(
                        "a joiner: never had the node, so its owner's drain state and metrics stay",
                        RULES,
                        observed(joined("j", "owner", "w1"), Optional.empty(), List.of(holding("owner", "w1"))),
                        d -> assertThat(d)
                                .isInstanceOfSatisfying(
                                        DoorDecision.Forget.class,
                                        f -> assertThat(f.forget().node()).isEmpty())));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cleanups")
    void decidesOnceWhatACleanupDoes(
            String name, DoorDecisions.Rules rules, DoorDecision.Observed o, Consumer<DoorDecision.Cleanup> expected) {
        expected.accept(DoorDecisions.cleanup(o, rules));
    }

    private static <T> Arguments row(
            String name, DoorDecisions.Rules rules, DoorDecision.Observed o, Consumer<T> expected) {
        return Arguments.of(name, rules, o, expected);
    }

    private static NodeMaintenance joined(String name, String owner, String node) {
        return withStatus(nm(name, node, s -> s.setJoin(true)), st -> {
            st.setPhase(Phase.Running);
            st.setNodeName(node);
            st.setJoinedTo(owner);
        });
    }

    /** A priority-100 request for cp1, created an hour before the others: first in the queue. */
    private static NodeMaintenance cpRequest() {
        NodeMaintenance nm = nm("cp", "cp1", s -> s.setPriority(100));
        nm.getMetadata().setCreationTimestamp("2026-11-26T08:00:00Z");
        return nm;
    }

    /** Created after the others of this table. */
    private static NodeMaintenance later(NodeMaintenance nm) {
        nm.getMetadata().setCreationTimestamp("2026-11-26T09:30:00Z");
        return nm;
    }

    private static NodeMaintenance badWindow(NodeMaintenance nm) {
        nm.getSpec().setWindow("0");
        return nm;
    }
}
