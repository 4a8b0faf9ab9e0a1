package dev.tenure.maintenance.drain;

/**
 * What one surge in flight does next (issue 51 item 2), pure: from its record, whether its raise was seen, the
 * workload's {@code spec.replicas} now and its pods still on the node. The order the public threads teach: raise,
 * let the eviction go once the budget counts the new pods (the eviction path as it is: the Eviction API enforces the
 * budget), and only then give back, so the ReplicaSet scaling down removes its newest pod (not the surge's, which is
 * Ready by then) and never the last Ready one; give back only the replicas still the surge's ({@link
 * SurgeRecord#giveBack}); a replica count someone else changed is left as they set it and said once; a count put
 * back to the owner's while the surge waits (a GitOps controller reverting it) is not raised again, even when the
 * status saying the surge was raised was lost: the workload's {@code metadata.generation} then moved since the record
 * (see {@link #next}).
 */
public final class SurgeProgress {

    /** How a surge left because its replicas were put back ends: the same words whichever way it was found. */
    private static final String NOT_RAISED_AGAIN = "; not raised again, the pods are evicted as with evacuation Evict";

    private SurgeProgress() {}

    /**
     * The surge's workload as read now.
     *
     * @param replicasNow its {@code spec.replicas}; null when the workload is gone
     * @param podsOnNode its pods still on the node and not terminating (the ones the surge moves)
     * @param ending the drain ends now (its timeout passed, or the maintenance ends): give back whatever stands
     * @param available the workload's {@code status.availableReplicas} (Ready for {@code minReadySeconds}, as its
     *     controller counts them); null when not reported
     * @param generation the workload's {@code metadata.generation}; null when not reported
     */
    public record Seen(Integer replicasNow, int podsOnNode, boolean ending, Integer available, Long generation) {
        /** Without a generation: a record without one is decided by the replicas alone. */
        public Seen(Integer replicasNow, int podsOnNode, boolean ending, Integer available) {
            this(replicasNow, podsOnNode, ending, available, null);
        }

        /** Without an availability count: the budget alone decides when the eviction goes. */
        public Seen(Integer replicasNow, int podsOnNode, boolean ending) {
            this(replicasNow, podsOnNode, ending, null, null);
        }
    }

    /** The next act. */
    public sealed interface Next {}

    /** Raise {@code spec.replicas} to {@code to} (a resourceVersion-conditional scale). */
    public record Raise(int to) implements Next {}

    /**
     * Raised: wait for the eviction of the pods on the node ({@code seenRaised}: the record's raise is now seen);
     * {@code evictable}: the new pods are available (the workload counts {@code replicas + added} available, Ready
     * for its {@code minReadySeconds}), so the drain may send the eviction, which the budget then judges; until then
     * the drain holds it, since a budget counts a pod healthy once Ready, before {@code minReadySeconds}.
     */
    public record Wait(boolean seenRaised, boolean evictable) implements Next {}

    /** The pods are off the node (or the drain ends): lower the replicas to {@code to}, then remove the record. */
    public record GiveBack(int to) implements Next {}

    /** Nothing to give back (never raised, or given back before a restart): remove the record only. */
    public record Release() implements Next {}

    /**
     * Someone else changed the replicas (or put them back while the surge waited): left as they are, said once; the
     * record is removed and the surge not tried again for this workload.
     *
     * @param why what was found, for the event and {@code status.surges[].left}
     * @param reverted the replicas are the owner's again after the surge's raise (put back by someone else), not
     *     another count
     */
    public record Leave(String why, boolean reverted) implements Next {
        /** Another count than the owner's or the surge's. */
        public Leave(String why) {
            this(why, false);
        }
    }

    /** The workload is gone: nothing to give back. */
    public record Gone() implements Next {}

    /**
     * The next act for {@code record}, raised already ({@code raised}: its raise was seen) or not, recorded before a
     * generation was kept.
     */
    public static Next next(SurgeRecord record, boolean raised, Seen seen) {
        return next(record, raised, null, seen);
    }

    /**
     * The next act for {@code record}, raised already ({@code raised}: its raise was seen) or not.
     *
     * <p>Replicas at the owner's count do not tell "never raised" from "raised, then put back by someone else": the
     * status saying {@code raised} is written after the scale, and is lost when its write fails (a conflict, the
     * operator killed). The workload's {@code metadata.generation} does: kube-apiserver moves it on every change of
     * the spec, the scale subresource's included, and for a Deployment on every change of its annotations too
     * (pkg/registry/apps/deployment/strategy.go and pkg/registry/apps/replicaset/strategy.go, PrepareForUpdate), never
     * on a status write. So with {@code raised} not seen and the owner's count, a generation still {@code
     * recordedGeneration} (as the record's write left it) means never raised: {@link Raise}; any other means the
     * workload was written since (the surge's raise and a put-back, or another change): {@link Leave} (reverted),
     * never raised again. Either way nothing someone else set is overwritten; a change that was not a put-back (an
     * annotation a person adds to the Deployment between the record and the raise) only costs the surge.
     *
     * @param recordedGeneration the workload's {@code metadata.generation} as the record was written; null for a
     *     record written by a release that did not keep it (replicas at the owner's count are then raised, as that
     *     release did)
     */
    public static Next next(SurgeRecord record, boolean raised, Long recordedGeneration, Seen seen) {
        if (seen.replicasNow() == null) {
            return new Gone();
        }
        int now = seen.replicasNow();
        if (seen.podsOnNode() == 0 || seen.ending()) {
            SurgeRecord.GiveBack back = record.giveBack(now);
            if (back instanceof SurgeRecord.Lower lower) {
                return new GiveBack(lower.to());
            }
            if (back instanceof SurgeRecord.ChangedBySomeoneElse changed) {
                return new Leave(changed.why());
            }
            return new Release();
        }
        SurgeRecord.ScaleUp up = record.afterCrash(now);
        if (up instanceof SurgeRecord.Raise raise) {
            if (raised) {
                return new Leave(
                        "replicas were put back to " + now + " (the owner's) while the surge waited: reverted by"
                                + " someone else (a GitOps controller?)" + NOT_RAISED_AGAIN,
                        true);
            }
            if (recordedGeneration != null
                    && seen.generation() != null
                    && !recordedGeneration.equals(seen.generation())) {
                return new Leave(
                        "replicas were put back to " + now + " (the owner's), the workload written since the surge's"
                                + " record (metadata.generation " + recordedGeneration + " then, " + seen.generation()
                                + " now): its raise reverted by someone else (a GitOps controller?) before the status"
                                + " said raised, or another change" + NOT_RAISED_AGAIN,
                        true);
            }
            return new Raise(raise.to());
        }
        if (up instanceof SurgeRecord.ChangedBySomeoneElse changed) {
            return new Leave(changed.why());
        }
        return new Wait(!raised, seen.available() == null || seen.available() >= record.target());
    }
}
