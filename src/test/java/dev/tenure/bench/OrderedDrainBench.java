package dev.tenure.bench;

import dev.tenure.maintenance.api.DrainBehavior;
import dev.tenure.maintenance.api.DrainRule;
import dev.tenure.maintenance.api.DrainSpec;
import dev.tenure.maintenance.api.NodeMaintenanceSpec;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.machine.MaintenanceRequest;
import dev.tenure.maintenance.machine.MaintenanceState;
import dev.tenure.testsupport.EmulatedCluster;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Row 10 (issue 29): what ordering a drain costs. The same pods (Deployments of pods stopping {@code termination} after
 * their eviction, on one node) drained by the same machine, once without rules (every pod evicted at once) and once
 * with one rule per Deployment giving it its own wave (each wave evicted only when the previous wave's pods are gone),
 * on fresh identical clusters, alternated. An ordered drain must wait for each wave's pods to stop (the price of the
 * order itself); what the machine adds on top, per wave, is the polling lag between a wave's last pod going and the
 * next wave's evictions: the claim is that it stays within one drain-poll-interval.
 */
final class OrderedDrainBench {
    static final String NODE = "w1";
    static final Duration LIMIT = Duration.ofMinutes(4);

    private final int deployments;
    private final int podsPerDeployment;
    private final Duration termination;
    private final Duration poll;

    OrderedDrainBench(int deployments, int podsPerDeployment, Duration termination, Duration poll) {
        this.deployments = deployments;
        this.podsPerDeployment = podsPerDeployment;
        this.termination = termination;
        this.poll = poll;
    }

    int pods() {
        return deployments * podsPerDeployment;
    }

    /** Seconds to drain the node without rules. */
    double unordered() throws Exception {
        return time(new DrainSpec());
    }

    /**
     * Seconds to drain the node in {@code waves} waves: Deployment d goes in wave {@code d * waves / deployments}, so
     * the waves are as even as the Deployments allow.
     */
    double ordered(int waves) throws Exception {
        List<DrainRule> rules = new ArrayList<>();
        for (int d = 0; d < deployments; d++) {
            rules.add(new DrainRule(
                    null,
                    new LabelSelectorBuilder()
                            .addToMatchLabels("app", "app" + d)
                            .build(),
                    DrainBehavior.Drain,
                    d * waves / deployments));
        }
        DrainSpec drain = new DrainSpec();
        drain.setRules(rules);
        return time(drain);
    }

    private double time(DrainSpec drain) throws Exception {
        NodeMaintenanceSpec spec = new NodeMaintenanceSpec(NODE, "bench");
        spec.setDrain(drain);
        MaintenanceRequest request = MaintenanceRequest.from(spec);
        try (EmulatedCluster cluster =
                EmulatedCluster.start(EmulatedCluster.Options.forTests().terminationDelay(p -> termination))) {
            cluster.seed().node(NODE).role("worker").create();
            cluster.seed().node("w2").role("worker").create();
            for (int d = 0; d < deployments; d++) {
                cluster.seed()
                        .deployment("app" + d)
                        .namespace("shop")
                        .replicas(podsPerDeployment)
                        .onNodes(NODE)
                        .create();
            }
            try (MachineRig rig = new MachineRig(cluster.client(), MachineRig.settings(10, poll))) {
                long t0 = System.nanoTime();
                MaintenanceState end = rig.driveToEnd(request, LIMIT);
                double seconds = (System.nanoTime() - t0) / 1e9;
                if (end.phase() != Phase.Succeeded) {
                    throw new IllegalStateException("drain ended " + end.phase() + ": " + end.lastError());
                }
                int left = cluster.client()
                        .pods()
                        .inAnyNamespace()
                        .withField("spec.nodeName", NODE)
                        .list()
                        .getItems()
                        .size();
                if (left > 0) {
                    throw new IllegalStateException(left + " pods left on " + NODE);
                }
                return seconds;
            }
        }
    }
}
