package dev.tenure.bench;

import static org.awaitility.Awaitility.await;

import dev.tenure.bench.ReadinessGaps.Gap;
import dev.tenure.bench.ReadinessGaps.PodSeen;
import dev.tenure.maintenance.api.DrainSpec;
import dev.tenure.maintenance.api.Evacuation;
import dev.tenure.maintenance.api.GoDuration;
import dev.tenure.maintenance.api.NodeMaintenanceSpec;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.drain.SurgePlanner;
import dev.tenure.maintenance.machine.MaintenanceRequest;
import dev.tenure.maintenance.machine.MaintenanceState;
import dev.tenure.testsupport.EmulatedCluster;
import dev.tenure.testsupport.RequestLog;
import dev.tenure.testsupport.RequestOrigin;
import dev.tenure.testsupport.ShippedSurgeRole;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.IntStream;

/**
 * Row 17 (issue 51): a drain no eviction can satisfy, on the living emulated cluster. Node {@value #NODE} holds N
 * single-replica Deployments, each under a PodDisruptionBudget of {@code minAvailable: 1}, which allows no disruption.
 * On fresh identical clusters, with one drain timeout: kubectl drain ({@code --timeout}), Tenure with {@code
 * evacuation: Evict} (the default) and Tenure with {@code evacuation: Surge} (the opt-in role bound as an admin binds
 * it). Per arm: how the drain ended, its wall time, the seconds during which a Deployment had no Ready pod (a watch of
 * the pods at the API server, {@link ReadinessGaps}), the evictions sent and refused, the scale writes, and the Deployments' replicas
 * afterwards against the originals. Two more arms: Surge on N/3 Deployments under {@code maxUnavailable: 0}, which
 * no surge can satisfy (the disruption controller's expected count follows the scale, so such a budget allows no
 * eviction at any replica count); and a control that drains the N Deployments without budgets with Evict: each single
 * replica is evicted before its replacement is Ready, so the measure must show seconds without a Ready pod there, or it
 * is not measuring.
 */
final class SurgeDrainBench {
    static final String NODE = DrainBench.NODE;
    static final String NS = "shop";
    static final Duration TERMINATION = Duration.ofSeconds(1);
    /** After the drain: until every Deployment has its replicas, all Ready, none terminating. */
    static final Duration SETTLE = Duration.ofMinutes(1);

    static final String MAINTENANCE_UID = "0b5e7c1e-bench-17";

    /** The budget of each Deployment of an arm. */
    enum Budget {
        MIN_AVAILABLE_1("minAvailable 1"),
        MAX_UNAVAILABLE_0("maxUnavailable 0"),
        NONE("no budget");

        final String shown;

        Budget(String shown) {
            this.shown = shown;
        }
    }

    enum Arm {
        KUBECTL(DrainBench.KUBECTL_DRAIN, Budget.MIN_AVAILABLE_1, Evacuation.Evict),
        EVICT("Tenure, evacuation Evict (default)", Budget.MIN_AVAILABLE_1, Evacuation.Evict),
        SURGE("Tenure, evacuation Surge", Budget.MIN_AVAILABLE_1, Evacuation.Surge),
        SURGE_MAX_UNAVAILABLE_0(
                "Tenure, evacuation Surge, budgets maxUnavailable 0 (a third as many Deployments)",
                Budget.MAX_UNAVAILABLE_0,
                Evacuation.Surge),
        NO_BUDGETS("control: Tenure, evacuation Evict, no budgets", Budget.NONE, Evacuation.Evict);

        final String label;
        final Budget budget;
        final Evacuation evacuation;

        Arm(String label, Budget budget, Evacuation evacuation) {
            this.label = label;
            this.budget = budget;
            this.evacuation = evacuation;
        }
    }

    /**
     * One arm's drain. {@code outcome}: "drained", "timed out" or what else ended it; {@code unreadySeconds}: summed over
     * the Deployments, from the drain's start until the cluster settled after it; {@code scaleWrites}: the operator's
     * Deployment scale writes answered 2xx; {@code workloadWrites}: every operator write sent to a Deployment or a
     * ReplicaSet (scale, record annotation), whatever the answer; {@code replicasChanged}: Deployments whose {@code
     * spec.replicas} differ from the original afterwards.
     */
    record Result(
            String outcome,
            double seconds,
            double unreadySeconds,
            int workloadsWithoutReadyPod,
            int spells,
            double longestSeconds,
            long evictionsAccepted,
            long evictionsRefused,
            long podListsByNode,
            long scaleWrites,
            long workloadWrites,
            int replicasChanged,
            double settleSeconds) {
        boolean drained() {
            return outcome.equals("drained");
        }

        boolean timedOut() {
            return outcome.equals("timed out");
        }
    }

    /**
     * What is wrong with row 17's results, empty when the row holds: Surge drains every pod with no second without a
     * Ready pod and every replica given back; kubectl, Evict and the {@code maxUnavailable: 0} arm time out with every
     * eviction refused and the replicas as they were; the {@code maxUnavailable: 0} arm sends no write to a workload at
     * all (the planner refuses such a budget before anything is written: {@link
     * SurgePlanner.Reason#BUDGET_FORBIDS}); the control shows seconds without a Ready pod.
     * An arm not run (kubectl absent) is not judged; Surge and the control must have run.
     *
     * @param deployments the Deployments of the {@code minAvailable: 1} arms and the control
     */
    static List<String> verdict(Map<Arm, Result> results, int deployments) {
        List<String> wrong = new ArrayList<>();
        Result surge = results.get(Arm.SURGE);
        if (surge == null
                || !surge.drained()
                || surge.unreadySeconds() > 0
                || surge.replicasChanged() > 0
                || surge.evictionsAccepted() < deployments) {
            wrong.add("Surge should drain every pod with no second without a Ready pod and the replicas given back: "
                    + surge);
        }
        for (Arm arm : List.of(Arm.KUBECTL, Arm.EVICT, Arm.SURGE_MAX_UNAVAILABLE_0)) {
            Result r = results.get(arm);
            if (r != null
                    && (!r.timedOut()
                            || r.evictionsAccepted() > 0
                            || r.evictionsRefused() == 0
                            || r.unreadySeconds() > 0
                            || r.replicasChanged() > 0)) {
                wrong.add(arm.label + " should time out on the budgets, every eviction refused, replicas as they were: "
                        + r);
            }
        }
        Result unavailable0 = results.get(Arm.SURGE_MAX_UNAVAILABLE_0);
        if (unavailable0 != null && (unavailable0.scaleWrites() > 0 || unavailable0.workloadWrites() > 0)) {
            wrong.add(Arm.SURGE_MAX_UNAVAILABLE_0.label + " should write nothing to a workload, no scale and no record"
                    + " (the planner refuses such a budget before any write: cannot surge, "
                    + SurgePlanner.Reason.BUDGET_FORBIDS.shown() + "): " + unavailable0);
        }
        Result control = results.get(Arm.NO_BUDGETS);
        if (control == null
                || !control.drained()
                || control.unreadySeconds() <= 0
                || control.evictionsAccepted() < deployments) {
            wrong.add("the control (no budgets) should evict every single replica and show seconds without a Ready "
                    + "pod, or the measure does not measure: " + control);
        }
        return wrong;
    }

    private final int deployments;
    private final Duration timeout;
    private final Duration readiness;

    SurgeDrainBench(int deployments, Duration timeout, Duration readiness) {
        if (deployments < 1) {
            throw new IllegalArgumentException("deployments must be >= 1, was " + deployments);
        }
        this.deployments = deployments;
        this.timeout = Objects.requireNonNull(timeout, "timeout");
        this.readiness = Objects.requireNonNull(readiness, "readiness");
    }

    int deployments() {
        return deployments;
    }

    /** The Deployments of {@code arm}: N, or a third of N (at least 1) under {@code maxUnavailable: 0}. */
    int deployments(Arm arm) {
        return arm.budget == Budget.MAX_UNAVAILABLE_0 ? Math.max(1, deployments / 3) : deployments;
    }

    Duration timeout() {
        return timeout;
    }

    List<String> names(Arm arm) {
        return IntStream.range(0, deployments(arm)).mapToObj(d -> "app" + d).toList();
    }

    /** The arm's drain of NODE on a fresh living cluster. */
    Result run(Arm arm) throws Exception {
        try (EmulatedCluster cluster = EmulatedCluster.start(
                EmulatedCluster.Options.forTests().living(readiness).terminationDelay(p -> TERMINATION))) {
            KubernetesClient client = cluster.client();
            for (String node : List.of(NODE, "w2", "w3")) {
                cluster.seed().node(node).role("worker").create();
            }
            List<String> names = names(arm);
            for (String name : names) {
                cluster.seed()
                        .deployment(name)
                        .namespace(NS)
                        .replicas(1)
                        .onNodes(NODE)
                        .create();
                var pdb = cluster.seed().pdb(name).namespace(NS).selector("app", name);
                switch (arm.budget) {
                    case MIN_AVAILABLE_1 -> pdb.minAvailable(1).create();
                    case MAX_UNAVAILABLE_0 -> pdb.maxUnavailable(0).create();
                    case NONE -> {}
                }
            }
            boolean budgets = arm.budget != Budget.NONE;
            awaitSteady(client, names, budgets);
            if (arm != Arm.KUBECTL) {
                bindShippedSurgeRole(client);
            }
            List<PodSeen> seen = Collections.synchronizedList(new ArrayList<>());
            List<String> trace = Collections.synchronizedList(new ArrayList<>());
            SharedIndexInformer<Pod> watch = client.pods().inNamespace(NS).inform(new ResourceEventHandler<>() {
                @Override
                public void onAdd(Pod pod) {
                    seen.add(seen(pod, PdbDrainBench.ready(pod)));
                    trace.add(System.nanoTime() + " ADD " + shown(pod));
                }

                @Override
                public void onUpdate(Pod before, Pod pod) {
                    seen.add(seen(pod, PdbDrainBench.ready(pod)));
                    trace.add(System.nanoTime() + " UPDATE " + shown(pod));
                }

                @Override
                public void onDelete(Pod pod, boolean unknown) {
                    seen.add(seen(pod, false));
                    trace.add(System.nanoTime() + " DELETE " + shown(pod));
                }
            });
            try {
                // the informer hands its first list to the handler on its own thread: the window opens once the
                // handler has seen every Deployment Ready, so a late first event is not taken for a gap
                await().atMost(Duration.ofSeconds(30))
                        .pollInterval(Duration.ofMillis(20))
                        .until(() -> {
                            long now = System.nanoTime();
                            return ReadinessGaps.of(names, List.copyOf(seen), now, now).values().stream()
                                    .allMatch(g -> g.spells() == 0);
                        });
                long t0 = System.nanoTime();
                String outcome = arm == Arm.KUBECTL ? kubectl(cluster) : tenure(cluster, arm);
                long t1 = System.nanoTime();
                awaitSettled(client, names, watch);
                long t2 = System.nanoTime();
                Map<String, Gap> gaps = ReadinessGaps.of(names, List.copyOf(seen), t0, t2);
                RequestLog log = cluster.requests();
                Result r = new Result(
                        outcome,
                        (t1 - t0) / 1e9,
                        ReadinessGaps.totalSeconds(gaps),
                        (int) gaps.values().stream().filter(g -> g.spells() > 0).count(),
                        gaps.values().stream().mapToInt(Gap::spells).sum(),
                        gaps.values().stream().mapToDouble(Gap::seconds).max().orElse(0),
                        log.answers().stream()
                                .filter(a -> a.request().is("create", "pods", "eviction") && a.status() < 300)
                                .count(),
                        log.answers().stream()
                                .filter(a -> a.request().is("create", "pods", "eviction") && a.refusedByBudget())
                                .count(),
                        log.count(r0 -> r0.is("list", "pods")
                                && String.valueOf(r0.query().get("fieldSelector"))
                                        .contains("spec.nodeName=" + NODE)),
                        log.answers().stream()
                                .filter(a -> RequestOrigin.of(a.request()) == RequestOrigin.OPERATOR
                                        && a.request().is("update", "deployments", "scale")
                                        && a.status() < 300)
                                .count(),
                        log.count(r0 -> RequestOrigin.of(r0) == RequestOrigin.OPERATOR
                                && r0.isWrite()
                                && (r0.resource().equals("deployments")
                                        || r0.resource().equals("replicasets"))),
                        replicasChanged(client, names),
                        (t2 - t1) / 1e9);
                System.out.println("bench: row 17 " + arm.label + ": " + r);
                // the pod changes of a Deployment that had no Ready pod, where none should (not the control)
                gaps.entrySet().stream()
                        .filter(g -> arm.budget != Budget.NONE && g.getValue().spells() > 0)
                        .limit(2)
                        .forEach(g -> {
                            System.out.println("bench: row 17 trace of " + g.getKey());
                            List.copyOf(trace).stream()
                                    .filter(line -> line.contains(" " + g.getKey() + "-"))
                                    .forEach(line -> System.out.println("  " + line));
                        });
                return r;
            } finally {
                watch.close();
            }
        }
    }

    private static String shown(Pod pod) {
        return pod.getMetadata().getName() + " rv=" + pod.getMetadata().getResourceVersion() + " node="
                + pod.getSpec().getNodeName() + " deleting="
                + (pod.getMetadata().getDeletionTimestamp() != null)
                + " phase=" + (pod.getStatus() == null ? null : pod.getStatus().getPhase()) + " conditions="
                + (pod.getStatus() == null || pod.getStatus().getConditions() == null
                        ? "[]"
                        : pod.getStatus().getConditions().stream()
                                .map(c -> c.getType() + "=" + c.getStatus())
                                .toList());
    }

    private static PodSeen seen(Pod pod, boolean ready) {
        return new PodSeen(
                System.nanoTime(),
                pod.getMetadata().getLabels() == null
                        ? ""
                        : pod.getMetadata().getLabels().getOrDefault("app", ""),
                pod.getMetadata().getName(),
                ready);
    }

    /** kubectl drain with the row's timeout: "drained", "timed out", or the drain fails the row. */
    private String kubectl(EmulatedCluster cluster) throws Exception {
        DrainBench.KubectlDrain run = DrainBench.kubectlDrain(cluster, timeout, true);
        if (run.exitCode() == 0) {
            return "drained";
        }
        if (run.timedOut()) {
            return "timed out";
        }
        throw new IllegalStateException("kubectl drain exited " + run.exitCode() + ": " + run.output());
    }

    /**
     * Tenure's machine with its defaults (as {@link MachineRig} wires it, through the operator's client and the status
     * as written), the row's timeout and the arm's evacuation: "drained" (Succeeded), "timed out" (Failed on the drain's
     * timeout), or the drain fails the row.
     */
    private String tenure(EmulatedCluster cluster, Arm arm) throws Exception {
        DrainSpec drain = new DrainSpec();
        drain.setEvacuation(arm.evacuation);
        drain.setTimeout(GoDuration.format(timeout));
        NodeMaintenanceSpec spec = new NodeMaintenanceSpec(NODE, "bench row 17");
        spec.setDrain(drain);
        MaintenanceRequest request = MaintenanceRequest.from(spec).withOwner(MAINTENANCE_UID, "bench-17");
        try (MachineRig rig =
                new MachineRig(cluster.operatorClient(), MachineRig.settings(10, Duration.ofSeconds(2)))) {
            MaintenanceState end = rig.driveToEnd(request, timeout.plus(Duration.ofMinutes(1)), true);
            if (end.phase() == Phase.Succeeded) {
                return "drained";
            }
            if (end.phase() == Phase.Failed
                    && end.lastError() != null
                    && end.lastError().contains("did not finish within")) {
                return "timed out";
            }
            throw new IllegalStateException(arm.label + " ended " + end.phase() + ": " + end.lastError());
        }
    }

    /** Every Deployment rolled out (1 available) and, with budgets, each counted by the disruption controller. */
    private static void awaitSteady(KubernetesClient client, List<String> names, boolean budgets) {
        await().atMost(Duration.ofMinutes(1))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> {
                    for (String name : names) {
                        Deployment d = client.apps()
                                .deployments()
                                .inNamespace(NS)
                                .withName(name)
                                .get();
                        if (d.getStatus() == null
                                || !Integer.valueOf(1).equals(d.getStatus().getAvailableReplicas())) {
                            return false;
                        }
                        if (budgets) {
                            PodDisruptionBudget pdb = client.policy()
                                    .v1()
                                    .podDisruptionBudget()
                                    .inNamespace(NS)
                                    .withName(name)
                                    .get();
                            if (pdb.getStatus() == null
                                    || !Integer.valueOf(1)
                                            .equals(pdb.getStatus().getCurrentHealthy())
                                    || !Integer.valueOf(0)
                                            .equals(pdb.getStatus().getDisruptionsAllowed())) {
                                return false;
                            }
                        }
                    }
                    return true;
                });
    }

    /**
     * After the drain: every Deployment has as many pods as its replicas, all Ready, none terminating, at the API
     * server and in the watch's cache (a Ready the watch sees late only lengthens the measured gap, never hides one).
     */
    private static void awaitSettled(KubernetesClient client, List<String> names, SharedIndexInformer<Pod> watch) {
        await().atMost(SETTLE).pollInterval(Duration.ofMillis(100)).until(() -> {
            List<Pod> pods = client.pods().inNamespace(NS).list().getItems();
            List<Pod> cached = watch.getStore().list();
            for (String name : names) {
                int replicas = client.apps()
                        .deployments()
                        .inNamespace(NS)
                        .withName(name)
                        .get()
                        .getSpec()
                        .getReplicas();
                if (!settled(pods, name, replicas) || !settled(cached, name, replicas)) {
                    return false;
                }
            }
            return true;
        });
    }

    private static boolean settled(List<Pod> pods, String name, int replicas) {
        List<Pod> of = pods.stream()
                .filter(p -> p.getMetadata().getLabels() != null
                        && name.equals(p.getMetadata().getLabels().get("app")))
                .toList();
        return of.size() == replicas && of.stream().allMatch(PdbDrainBench::ready);
    }

    private static int replicasChanged(KubernetesClient client, List<String> names) {
        return (int) names.stream()
                .filter(name -> !Integer.valueOf(1)
                        .equals(client.apps()
                                .deployments()
                                .inNamespace(NS)
                                .withName(name)
                                .get()
                                .getSpec()
                                .getReplicas()))
                .count();
    }

    /** The opt-in ClusterRole {@code tenure-operator-surge} exactly as shipped in deploy/, bound as an admin binds it. */
    static void bindShippedSurgeRole(KubernetesClient client) throws Exception {
        ShippedSurgeRole.bind(client, "tenure-system", "tenure-operator");
    }
}
