package dev.tenure.maintenance.machine;

import dev.tenure.maintenance.api.PlacementPolicy;
import dev.tenure.maintenance.api.PlacementStatus;
import dev.tenure.placement.PlacementForecast;
import dev.tenure.placement.PlacementForecast.PodForecast;
import dev.tenure.placement.PlacementForecast.Verdict;
import java.util.List;
import java.util.Optional;

/**
 * What the placement forecast made before the cordon decides ({@code spec.drain.placement}): the bounded {@code
 * status.placement}, the Warning to say (once per change of the forecast), and whether the maintenance waits. Pure.
 */
public final class PlacementGate {

    /** Pods an event's message names at most. */
    static final int EVENT_PODS = 5;
    /** Claims {@code status.placement.volumesNotRead} names at most. */
    static final int VOLUMES_NAMED = 3;

    /** The condition that says whether every pod to evict fits on a node that stays schedulable. */
    public static final String PODS_FIT = "PodsFit";
    /** Condition {@link #PODS_FIT} False, and the Warning event's reason. */
    public static final String WILL_NOT_FIT = "PodsWillNotFit";

    private PlacementGate() {}

    /**
     * What one forecast decides.
     *
     * @param status what {@code status.placement} shows
     * @param hold policy Wait and a pod fits nowhere (or is pinned): stay Pending, touch nothing
     * @param warning the Warning {@value #WILL_NOT_FIT} to emit: a pod fits nowhere, and the forecast changed since the
     *     last one in status
     * @param released a Wait that held the maintenance ends: every pod fits now (Normal {@value #PODS_FIT})
     */
    public record Decision(PlacementStatus status, boolean hold, Optional<String> warning, Optional<String> released) {}

    /**
     * The forecast of the drain of {@code nodeName} under {@code policy} as a NodeMaintenance's {@value
     * PlacementView#SPEC_DRAIN_PLACEMENT} sets it, after {@code prior} (null: none yet).
     */
    public static Decision decide(
            PlacementPolicy policy, String nodeName, PlacementForecast forecast, PlacementStatus prior) {
        return decide(policy, PlacementView.SPEC_DRAIN_PLACEMENT, nodeName, forecast, prior);
    }

    /**
     * The forecast of the drain of {@code nodeName} under {@code policy}, after {@code prior} (null: none yet); the
     * Warning names {@code policySetting}, where the door that asked reads the policy from ({@link
     * PlacementView#policySetting}).
     */
    public static Decision decide(
            PlacementPolicy policy,
            String policySetting,
            String nodeName,
            PlacementForecast forecast,
            PlacementStatus prior) {
        PlacementStatus status = status(policy, forecast);
        boolean stranded = status.stranded() > 0;
        Optional<String> warning = stranded && !status.equals(prior)
                ? Optional.of(message(nodeName, forecast, policy, policySetting))
                : Optional.empty();
        boolean hold = policy == PlacementPolicy.Wait && stranded;
        boolean wasHeld =
                prior != null && PlacementPolicy.Wait.name().equals(prior.getPolicy()) && prior.stranded() > 0;
        Optional<String> released = wasHeld && !stranded
                ? Optional.of("every pod to evict from node " + nodeName + " now fits on a node that stays schedulable"
                        + " (" + status.getFits() + " fit, " + status.getNotRecreated() + " not recreated): going on")
                : Optional.empty();
        return new Decision(status, hold, warning, released);
    }

    /** {@code status.placement}: counts per verdict and at most {@link PlacementStatus#MAX_PODS} stranded pods. */
    public static PlacementStatus status(PlacementPolicy policy, PlacementForecast forecast) {
        PlacementStatus s = new PlacementStatus();
        s.setPolicy(policy.name());
        s.setFits(count(forecast, Verdict.FITS));
        s.setDoesNotFit(count(forecast, Verdict.DOES_NOT_FIT));
        s.setPinned(count(forecast, Verdict.PINNED));
        s.setNotRecreated(count(forecast, Verdict.NOT_RECREATED));
        List<PodForecast> stranded = forecast.stranded();
        if (!stranded.isEmpty()) {
            s.setPods(stranded.stream()
                    .limit(PlacementStatus.MAX_PODS)
                    .map(p -> new PlacementStatus.Pod(key(p), shown(p.verdict()), p.message()))
                    .toList());
        }
        int notListed = Math.max(0, stranded.size() - PlacementStatus.MAX_PODS);
        s.setPodsNotListed(notListed == 0 ? null : notListed);
        s.setVolumesNotRead(volumesNotRead(forecast.volumesNotRead()));
        s.setNamespacesNotRead(forecast.namespacesNotRead()
                .map(why -> why + " (forecast without the affinity terms that select namespaces by label: they passed)")
                .orElse(null));
        return s;
    }

    /** {@code status.placement.volumesNotRead}: the first {@value #VOLUMES_NAMED} named, then a count; null: none. */
    static String volumesNotRead(List<String> notRead) {
        if (notRead.isEmpty()) {
            return null;
        }
        String named = String.join("; ", notRead.subList(0, Math.min(VOLUMES_NAMED, notRead.size())));
        int more = notRead.size() - VOLUMES_NAMED;
        return named + (more > 0 ? "; and " + more + " more" : "")
                + " (forecast without these volumes: their pods' volume filters passed)";
    }

    /** The condition's message for {@code status}: the pods that fit nowhere, or that all fit. */
    public static String conditionMessage(PlacementStatus status) {
        if (status.stranded() == 0) {
            return status.getFits() + " pod(s) to evict fit on a node that stays schedulable";
        }
        StringBuilder b = new StringBuilder()
                .append(status.stranded())
                .append(" pod(s) to evict fit no node that stays schedulable: ");
        List<PlacementStatus.Pod> pods = status.getPods() == null ? List.of() : status.getPods();
        for (int i = 0; i < pods.size() && i < EVENT_PODS; i++) {
            b.append(i == 0 ? "" : "; ")
                    .append(pods.get(i).getPod())
                    .append(": ")
                    .append(pods.get(i).getMessage());
        }
        if (status.stranded() > Math.min(pods.size(), EVENT_PODS)) {
            b.append("; ...");
        }
        return b.toString();
    }

    private static String message(
            String nodeName, PlacementForecast forecast, PlacementPolicy policy, String policySetting) {
        return conditionMessage(status(policy, forecast)) + " (forecast before cordoning node " + nodeName + ", with it"
                + " and the nodes in maintenance or ahead in the queue cordoned; " + policySetting + " " + policy
                + (policy == PlacementPolicy.Wait
                        ? ": the maintenance waits, nothing is cordoned or evicted)"
                        : ": the drain goes on, as kubectl's does)");
    }

    private static int count(PlacementForecast forecast, Verdict verdict) {
        return (int)
                forecast.pods().stream().filter(p -> p.verdict() == verdict).count();
    }

    private static String key(PodForecast p) {
        return p.namespace() + "/" + p.name();
    }

    private static String shown(Verdict v) {
        return v == Verdict.PINNED ? "Pinned" : "DoesNotFit";
    }
}
