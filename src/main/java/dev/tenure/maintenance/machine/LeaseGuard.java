package dev.tenure.maintenance.machine;

import dev.tenure.election.ClaimResult;
import dev.tenure.election.LeaseHeldElsewhere;
import dev.tenure.election.LeaseKey;
import dev.tenure.election.LeaseStoreException;
import dev.tenure.election.WorkFence;
import dev.tenure.maintenance.api.GoDuration;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.machine.MaintenanceMachine.Step;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.function.Supplier;
import org.jboss.logging.Logger;

/**
 * The {@link MaintenanceMachine}'s step 1 and the bound on every write after it: the node lease is claimed (after
 * another controller's hold in a shared lease namespace is waited for, before the first claim), and each side effect
 * after it is sent only while the lease holds ({@link WorkFence}). Also the lease kept on a rolling expiry while
 * pre-uncordon hooks hold an end.
 */
final class LeaseGuard {
    private static final Logger LOG = Logger.getLogger(LeaseGuard.class);

    private final NodeLease nodeLease;
    private final SharedNodeLeases sharedLeases;
    private final LeaseStep leaseStep;
    private final MaintenanceSettings settings;

    LeaseGuard(NodeLease nodeLease, SharedNodeLeases sharedLeases, LeaseStep leaseStep, MaintenanceSettings settings) {
        this.nodeLease = nodeLease;
        this.sharedLeases = sharedLeases;
        this.leaseStep = leaseStep;
        this.settings = settings;
    }

    /**
     * The node lease kept while pre-uncordon hooks hold an end: a rolling expiry ({@code until}), since a window's fixed
     * one may be past. False when another holder has the lease now.
     */
    boolean keep(String nodeName, Node node, Instant until) {
        leaseStep.settle(nodeLease.keyOf(nodeName), LeaseHold.acting(settings));
        return !(nodeLease.claim(nodeName, node.getMetadata().getUid(), until, LeaseHold.acting(settings))
                instanceof LeaseHeldElsewhere);
    }

    /** Step 1, the node lease; then {@code afterLease}, the steps after it, each write bounded by the lease. */
    Step claimThen(
            MaintenanceRequest request,
            MaintenanceState prior,
            MaintenanceState.Builder s,
            Node node,
            boolean heldFailure,
            Instant now,
            MaintenanceEvents events,
            Supplier<Step> afterLease) {
        String nodeName = request.nodeName();
        // long while there is nothing to do on the node, short (written, and the write awaited) before anything is
        LeaseHold hold = LeaseHold.of(request, prior, heldFailure, marksInPlace(request, node, now), settings);
        Instant leaseUntil = hold.rolling()
                ? now.plus(hold.duration())
                : MaintenancePlanner.leaseUntil(request, prior, settings, now);
        LeaseKey leaseKey = nodeLease.keyOf(nodeName);
        // Before our node lease is first taken: another controller's hold in a shared namespace (medik8s-leases) is
        // waited for as a holder of our own lease would be. Once the maintenance has begun it is not looked at again.
        SharedNodeLeases.Verdict shared = new SharedNodeLeases.Verdict.Clear();
        ClaimResult claim;
        try {
            if (prior.leaseAcquiredAt() == null) {
                shared = sharedLeases.check(nodeName, now);
                if (shared instanceof SharedNodeLeases.Verdict.Held held) {
                    return leaseStep.waitForLease(prior, s, held.held(), now, events);
                }
            }
            // a heartbeat renewing another duration stops first, so it cannot lengthen the lease this claim shortens
            leaseStep.settle(leaseKey, hold);
            claim = nodeLease.claim(nodeName, node.getMetadata().getUid(), leaseUntil, hold);
        } catch (LeaseStoreException | KubernetesClientException e) {
            int errors = prior.errorOnLeaseCount() + 1;
            Duration backoff = MaintenancePlanner.leaseErrorBackoff(errors);
            String error = (e instanceof LeaseStoreException l && !l.key().equals(leaseKey)
                            ? "reading lease " + l.key()
                            : "taking lease " + leaseKey)
                    + ": " + e.getMessage();
            s.errorOnLeaseCount(errors);
            if (prior.phase() == Phase.Failed) {
                // A Failed maintenance keeps the reason it failed for in lastError (as CordonStep does): a lease error
                // of a later step would hide it for good, since the next claim that goes through clears nothing. The
                // error is counted in errorOnLeaseCount and logged; the step is retried after the same back-off.
                LOG.warnf(
                        "node %s: %s (Failed: lastError keeps the reason it failed for; retrying in %s)",
                        nodeName, error, GoDuration.format(backoff));
            } else {
                s.lastError(error);
            }
            return new Step(s.build(), Optional.of(backoff));
        }
        if (claim instanceof LeaseHeldElsewhere elsewhere) {
            return leaseStep.waitForLease(prior, s, elsewhere, now, events);
        }
        if (shared instanceof SharedNodeLeases.Verdict.Unreadable unreadable) {
            events.emit(
                    true,
                    MaintenanceEvents.SHARED_LEASE_UNREADABLE,
                    "could not read node lease(s) " + unreadable.keys() + " (" + unreadable.message()
                            + "): a hold by another controller there is not waited for; grant get on leases there,"
                            + " or leave the namespace out of tenure.maintenance.lease.guard-namespaces");
        }
        leaseStep.held(request, prior, s, leaseKey, claim, node.getMetadata().getUid(), hold, now, events);
        if (MaintenanceStages.startsRunning(prior, heldFailure)) {
            s.phase(Phase.Running).lastError(null);
        }
        // Every side effect from here on (cordon, taints, handover, each eviction) is sent only while the node lease
        // holds, and never from the window's end on: the window bounds each write as the lease does, whatever its
        // length (a 1 ns window sends nothing), not once per call.
        // Under the long idle lease, as under the short one: no write later than leaseDuration (less the skew
        // allowance) after its last renewal. A mark put back by a call that read the node before someone removed it is
        // refused here when that renewal is older; the next call sees the marks missing and shortens the lease first.
        Instant leaseSendUntil = hold.kind() == LeaseHold.Kind.IDLE
                ? nodeLease.sendUntil(claim.held().orElseThrow(), settings.leaseDuration())
                : nodeLease.sendUntil(claim.held().orElseThrow());
        Optional<Instant> windowEnd = MaintenancePlanner.windowEnd(request, s.build());
        WorkFence.Bound bound = windowEnd.isPresent() && windowEnd.get().isBefore(leaseSendUntil)
                ? leaseStep.bound(
                        "maintenance window (spec.window "
                                + GoDuration.format(request.window().orElseThrow()) + ", ends " + windowEnd.get() + ")",
                        windowEnd.get())
                : leaseStep.bound(leaseKey, leaseSendUntil);
        return bounded(bound, s, afterLease);
    }

    /** The cordon, both taints and the Node condition with this request's message are on {@code node} as read. */
    static boolean marksInPlace(MaintenanceRequest request, Node node, Instant now) {
        return NodeMarks.markPatch(node).isEmpty()
                && NodeMarks.conditionPatch(node, CordonStep.CONDITION_REASON, request.conditionMessage(), now)
                        .isEmpty();
    }

    /**
     * {@code step} with its writes bounded by the lease {@code key} until {@code sendUntil}; a write refused past it
     * (or past the term) ends the step with the refusal in lastError, to be tried again after the lease is renewed.
     */
    Step bounded(LeaseKey key, Instant sendUntil, MaintenanceState.Builder s, Supplier<Step> step) {
        return bounded(leaseStep.bound(key, sendUntil), s, step);
    }

    /** {@code step} with its writes bounded by {@code bound} (and the term); a refusal ends it as above. */
    Step bounded(WorkFence.Bound bound, MaintenanceState.Builder s, Supplier<Step> step) {
        try {
            return WorkFence.bounded(bound, step);
        } catch (RuntimeException e) {
            WorkFence.OutsideTerm refused = WorkFence.refusal(e).orElseThrow(() -> e);
            return new Step(
                    s.lastError("not sent: " + refused.getMessage()).build(),
                    Optional.of(settings.drainPollInterval()));
        }
    }
}
