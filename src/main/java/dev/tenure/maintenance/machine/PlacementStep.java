package dev.tenure.maintenance.machine;

import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.api.PlacementPolicy;
import dev.tenure.maintenance.machine.MaintenanceMachine.Step;
import dev.tenure.placement.PlacementCluster;
import dev.tenure.placement.PlacementForecast;
import dev.tenure.placement.PlacementPods;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.jboss.logging.Logger;

/**
 * The placement forecast before the cordon ({@code spec.drain.placement}, issue 49): the I/O around {@link
 * PlacementGate}. Reads on demand, once per forecast, and keeps nothing: every pod of the cluster in pages of {@value
 * #PAGE} (one LIST per page, each pod reduced at once to what the filters read, {@link PlacementPods}), the Nodes from
 * the door's {@link PlacementView} (the shared Node cache: no request), and what the drain's own plan would evict
 * from the node ({@link DrainStep#evictions}: its DaemonSet GETs, as the drain makes them). Not read: volumes and
 * claims (a pod's claims are not bound to volumes here, so {@code VolumeBinding} and {@code VolumeZone} pass it and
 * no pod is forecast pinned) and namespace labels (an affinity term's {@code namespaceSelector} other than {@code {}}
 * matches no namespace).
 */
final class PlacementStep {

    private static final Logger LOG = Logger.getLogger(PlacementStep.class);

    /** Pods per LIST page ({@code limit}), as kubectl and client-go's pager ask for them. */
    static final int PAGE = 500;
    /** A maintenance that Wait holds makes its forecast again this often, besides when a Node changes. */
    static final Duration RECHECK = Duration.ofSeconds(30);

    private final KubernetesClient client;
    private final DrainStep drainStep;

    PlacementStep(KubernetesClient client, DrainStep drainStep) {
        this.client = client;
        this.drainStep = drainStep;
    }

    /**
     * Before the lease and the cordon: the forecast into {@code s} ({@code status.placement}), its Warning once per
     * change, and with policy Wait and a pod that fits nowhere, the step that keeps the maintenance Pending (nothing
     * written to the node or its lease, nothing evicted); empty: go on to the lease.
     */
    Optional<Step> gate(
            MaintenanceRequest request,
            MaintenanceState prior,
            MaintenanceState.Builder s,
            PlacementView view,
            Instant now,
            MaintenanceEvents events) {
        PlacementPolicy policy = request.drain().placement();
        PlacementForecast forecast;
        try {
            forecast = forecast(request, view, now);
        } catch (KubernetesClientException e) {
            String error = "placement forecast for node " + request.nodeName() + ": " + e.getMessage();
            if (policy == PlacementPolicy.Wait) {
                // never cordon on a forecast not made: wait, and say why
                return Optional.of(
                        new Step(s.phase(Phase.Pending).lastError(error).build(), Optional.of(RECHECK)));
            }
            LOG.warnf("%s (spec.drain.placement Warn: the maintenance goes on)", error);
            return Optional.empty();
        }
        PlacementGate.Decision verdict = PlacementGate.decide(policy, request.nodeName(), forecast, prior.placement());
        s.placement(verdict.status());
        verdict.warning().ifPresent(w -> events.emit(true, PlacementGate.WILL_NOT_FIT, w));
        verdict.released().ifPresent(r -> events.emit(false, PlacementGate.PODS_FIT, r));
        if (verdict.hold()) {
            return Optional.of(new Step(s.phase(Phase.Pending).lastError(null).build(), Optional.of(RECHECK)));
        }
        return Optional.empty();
    }

    /**
     * The forecast of the node's drain now: the pods its plan would evict, in wave order, placed on the cluster with
     * the node and {@link PlacementView#alsoCordoned()} cordoned.
     */
    PlacementForecast forecast(MaintenanceRequest request, PlacementView view, Instant now) {
        String nodeName = request.nodeName();
        List<Pod> onNode = new ArrayList<>();
        List<Pod> bound = new ArrayList<>();
        String next = null;
        do {
            PodList page = client.pods()
                    .inAnyNamespace()
                    .list(new ListOptionsBuilder()
                            .withLimit((long) PAGE)
                            .withContinue(next)
                            .build());
            for (Pod pod : page.getItems()) {
                String on = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
                if (on == null) {
                    continue; // not bound: takes no room (PlacementCluster)
                }
                if (nodeName.equals(on)) {
                    onNode.add(pod); // the drain plan reads the whole pod, as the drain does
                }
                bound.add(PlacementPods.trimmed(pod));
            }
            next = page.getMetadata() == null ? null : page.getMetadata().getContinue();
        } while (next != null && !next.isEmpty());
        List<Pod> evictions = drainStep.evictions(request, onNode, now);
        PlacementCluster cluster = PlacementCluster.of(view.nodes().get(), bound);
        Set<String> cordoned = new TreeSet<>(view.alsoCordoned().get());
        cordoned.remove(nodeName);
        return PlacementForecast.of(cluster, List.of(new PlacementForecast.Drain(nodeName, evictions)), cordoned);
    }
}
