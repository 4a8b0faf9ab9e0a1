package dev.tenure.operator;

import dev.tenure.coordination.CoordinationController;
import dev.tenure.coordination.HandoverPlanner.HandoverStep;
import dev.tenure.election.LeaseStoreException;
import dev.tenure.maintenance.machine.LeadershipHandover;
import io.fabric8.kubernetes.client.KubernetesClientException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Instant;
import java.util.List;
import java.util.stream.Collectors;
import org.jboss.logging.Logger;

/**
 * The NodeMaintenance handover step on coordinated leader election: after the node is cordoned, every Lease whose
 * holder runs on it gets preferredHolder set to the best candidate elsewhere ({@link CoordinationController#requestHandover}),
 * and the step reports done once no such Lease is held on the node any more. The holder (an election-core
 * Candidate, or any client honouring preferredHolder) releases at once and the successor acquires on the release
 * event, so the leaderless gap is a watch event and a write rather than a lease duration.
 *
 * <p>While coordinated leader election is served but not running on this replica (it starts after the reconcilers when
 * a replica begins to lead), the step is in progress, not done: a handover asked for by the previous leader or release
 * may still be in flight, and draining now would kill the leader it protects.
 *
 * <p>Leases nobody off the node can take are reported and not waited for: waiting would only delay the drain until
 * {@code spec.handover.timeout}. Without coordinated leader election (LeaseCandidate API not served, or disabled)
 * there is nothing to hand over.
 */
@ApplicationScoped
public class CoordinatedLeadershipHandover implements LeadershipHandover {

    private static final Logger LOG = Logger.getLogger(CoordinatedLeadershipHandover.class);

    private final CoordinationController controller;

    @Inject
    public CoordinatedLeadershipHandover(CoordinationController controller) {
        this.controller = controller;
    }

    @Override
    public Outcome handOver(String nodeName, Instant startedAt, Instant now) {
        if (!controller.api().served()) {
            return Outcome.complete(
                    "no coordinated leases to hand over (coordinated leader election " + controller.status() + ")");
        }
        if (!controller.isRunning()) {
            // Served but not running: starting after the reconcilers (a failover or upgrade), or stopping. A handover
            // in flight is not over because this replica cannot see it yet: wait, bounded by spec.handover.timeout.
            return Outcome.inProgress("coordinated leader election " + controller.status() + "; waiting for it to"
                    + " hand leases off node " + nodeName);
        }
        List<HandoverStep> steps;
        try {
            steps = controller.requestHandover(nodeName);
        } catch (KubernetesClientException e) {
            // retried on the next reconcile, bounded by spec.handover.timeout
            return Outcome.inProgress(
                    "requesting handover off node " + nodeName + ": HTTP " + e.getCode() + " " + e.getMessage());
        } catch (LeaseStoreException e) {
            return Outcome.inProgress("requesting handover off node " + nodeName + ": " + e.getMessage());
        } catch (IllegalStateException e) {
            // stopped between the check and the call (leadership of the operator ending): not done, not failed
            return Outcome.inProgress(e.getMessage());
        }
        if (steps.isEmpty()) {
            // also when the strategy moved them already: MaintenanceAware reacts to the cordon by itself
            return Outcome.complete("no coordinated lease is held on node " + nodeName + " any more");
        }
        List<HandoverStep> moving =
                steps.stream().filter(s -> s.successor().isPresent()).toList();
        if (moving.isEmpty()) {
            String stuck = describe(steps);
            LOG.warnf("Node %s: no candidate off the node can take %s; draining without handover", nodeName, stuck);
            return Outcome.complete("no candidate off node " + nodeName + " can lead " + stuck);
        }
        return Outcome.inProgress(
                "waiting for " + moving.size() + " lease(s) to move off node " + nodeName + ": " + describe(moving));
    }

    private static String describe(List<HandoverStep> steps) {
        return steps.stream()
                .map(s -> s.lease().namespace() + "/" + s.lease().name() + " (" + s.holder()
                        + s.successor().map(n -> " -> " + n).orElse("") + ")")
                .collect(Collectors.joining(", "));
    }
}
