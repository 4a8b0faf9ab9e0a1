package dev.tenure.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The "workloads whole again" gate, one row per case of its definition (docs/rollout.md, {@link WorkloadsWhole}). */
class WorkloadsWholeTest {

    /** A ReplicaSet of generation 2 wanting {@code want}, with the status counts given (null: no status). */
    static HasMetadata rs(Integer want, Long observed, Integer active, Integer available) {
        var b = new ReplicaSetBuilder()
                .withNewMetadata()
                .withName("web-5d8f")
                .withNamespace("shop")
                .withGeneration(2L)
                .endMetadata()
                .withNewSpec()
                .withReplicas(want)
                .endSpec();
        if (observed != null) {
            b.withNewStatus()
                    .withObservedGeneration(observed)
                    .withReplicas(active)
                    .withAvailableReplicas(available)
                    .withReadyReplicas(available)
                    .endStatus();
        }
        return b.build();
    }

    static HasMetadata sts(int want, long observed, int created, int ready, Integer available) {
        return new StatefulSetBuilder()
                .withNewMetadata()
                .withName("db")
                .withNamespace("shop")
                .withGeneration(1L)
                .endMetadata()
                .withNewSpec()
                .withReplicas(want)
                .endSpec()
                .withNewStatus()
                .withObservedGeneration(observed)
                .withReplicas(created)
                .withReadyReplicas(ready)
                .withAvailableReplicas(available)
                .endStatus()
                .build();
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of("ReplicaSet: every replica available, none extra", rs(3, 2L, 3, 3), null),
                Arguments.of(
                        "ReplicaSet: a replacement Pending (counted active, not available)",
                        rs(3, 2L, 3, 2),
                        "2 of 3 available, 1 pod(s) Pending or not Ready"),
                Arguments.of("ReplicaSet: a replacement not created yet", rs(3, 2L, 2, 2), "2 of 3 available"),
                Arguments.of("ReplicaSet: spec.replicas unset means 1 (the API default)", rs(null, 2L, 1, 1), null),
                Arguments.of(
                        "ReplicaSet: a status of an older generation says nothing",
                        rs(3, 1L, 3, 3),
                        "its controller has not observed generation 2 yet"),
                Arguments.of(
                        "ReplicaSet: no status at all",
                        rs(3, null, null, null),
                        "its controller has not observed generation 2 yet"),
                Arguments.of("ReplicaSet: scaled to 0", rs(0, 2L, 0, 0), null),
                Arguments.of("StatefulSet: all created, ready, available", sts(3, 1, 3, 3, 3), null),
                Arguments.of(
                        "StatefulSet: a pod not Ready", sts(3, 1, 3, 2, 2), "2 of 3 ready, 2 available, 3 created"),
                Arguments.of(
                        "StatefulSet: availableReplicas absent (before 1.22) reads readyReplicas",
                        sts(2, 1, 2, 2, null),
                        null),
                Arguments.of("A workload that is gone holds nothing", null, null));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void whole(String name, HasMetadata workload, String notWhole) {
        assertThat(WorkloadsWhole.notWhole(workload)).isEqualTo(notWhole);
    }

    static final WorkloadRef WEB = new WorkloadRef("apps/v1", "ReplicaSet", "shop", "web-5d8f");
    static final WorkloadRef DB = new WorkloadRef("apps/v1", "StatefulSet", "shop", "db");
    static final WorkloadRef JOB = new WorkloadRef("batch/v1", "Job", "shop", "report");

    @ParameterizedTest(name = "{0}")
    @MethodSource("gates")
    void gate(String name, Map<WorkloadRef, WorkloadsWhole.Read> reads, boolean open, String message) {
        GateState gate = WorkloadsWhole.gate("n1", List.of(WEB, DB, JOB), reads);
        assertThat(gate.name()).isEqualTo(WorkloadsWhole.GATE);
        assertThat(gate.node()).isEqualTo("n1");
        assertThat(gate.open()).isEqualTo(open);
        assertThat(gate.message()).isEqualTo(message);
    }

    static Stream<Arguments> gates() {
        var whole = new WorkloadsWhole.Read(rs(3, 2L, 3, 3), null);
        var wholeDb = new WorkloadsWhole.Read(sts(1, 1, 1, 1, 1), null);
        return Stream.of(
                Arguments.of(
                        "every judged workload whole; a Job is not judged",
                        Map.of(WEB, whole, DB, wholeDb),
                        true,
                        null),
                Arguments.of(
                        "one not whole closes it, named",
                        Map.of(WEB, new WorkloadsWhole.Read(rs(3, 2L, 3, 2), null), DB, wholeDb),
                        false,
                        "ReplicaSet shop/web-5d8f: 2 of 3 available, 1 pod(s) Pending or not Ready"),
                Arguments.of(
                        "a workload gone is whole", Map.of(WEB, WorkloadsWhole.Read.gone(), DB, wholeDb), true, null),
                Arguments.of(
                        "a read that failed closes it, said as such",
                        Map.of(WEB, new WorkloadsWhole.Read(null, "403 forbidden"), DB, wholeDb),
                        false,
                        "ReplicaSet shop/web-5d8f: could not be read: 403 forbidden"),
                Arguments.of(
                        "a workload not read closes it", Map.of(WEB, whole), false, "StatefulSet shop/db: not read"));
    }
}
