package dev.tenure.election;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * Evidence of death, the pure rule: whether the API server shows that the exact process holding a lease has ended.
 * A contender that has it may take the lease before it expires; without it, it waits out the lease as always.
 *
 * <h2>The rule</h2>
 * The holder wrote, with its holder identity, a {@link HolderProcess}: its pod (name and UID), its container, and
 * {@code since}, a reading of its own wall clock taken while it ran. The evidence is an ended run of that container in
 * that pod's status (the kubelet's {@code state.terminated} or {@code lastState.terminated}) that
 * <ol>
 *   <li>has a container ID, a start and a finish (the kubelet's placeholder for a container it could not find has
 *   none),</li>
 *   <li>started at least one second before {@code since} ({@code startedAt + 1 s ≤ since}: the API keeps whole
 *   seconds, so this puts the true start strictly before it),</li>
 *   <li>finished after {@code since} and after the lease's {@code acquireTime} ({@code since < finishedAt} and
 *   {@code acquireTime < finishedAt}, on the truncated finish, so the true finish is later still).</li>
 * </ol>
 * The holder was running at {@code since}, in some run of its container. A kubelet runs one run of a named container
 * at a time and starts the next only after the previous has ended, so runs of one container in one pod do not overlap
 * in time; the run whose [start, finish] contains {@code since} is therefore the holder's, and it has ended.
 *
 * <h2>Why a stale or lagging status never makes a live holder look dead</h2>
 * A status is only ever behind the truth, never ahead: the kubelet writes a run as terminated after the runtime saw it
 * exit, and an older copy of the status (a lagging kubelet, a watch cache, an informer) shows fewer ended runs, not
 * more. Every ended run it can show finished before the status was written. The runs of earlier containers of the same
 * pod — all a stale status could add in {@code lastState} — finished before the holder's run started, hence before
 * {@code since}: condition 3 rejects them, as it rejects any status written before the lease was acquired. A run of a
 * later container started after the holder's ended, so never before {@code since}: condition 2 rejects it. A pod
 * deleted and created again under the same name has another UID. So lag only delays the evidence; it cannot invent it.
 *
 * <h2>What is never evidence</h2>
 * A missing pod (a force delete while the node is cut off leaves the process running), a pod being deleted, a node
 * NotReady or a kubelet that does not answer (nothing ended is reported: wait), a binding that names another holder
 * or none (an older replica), another pod UID, a run without an ID or times.
 *
 * <h2>Limits</h2>
 * The comparison puts the holder's clock reading beside the runtime's times: both are the node's clock (containers
 * share the host's), so it holds as long as that clock is not stepped back, between the end of one run and the
 * holder's reading, by more than the time between them. Processes of the container other than the one that held the
 * lease end with it (the runtime kills the container's whole process tree).
 */
public final class ProcessEndRule {
    /** The API's timestamps keep whole seconds: a start is only known to lie within a second after the one shown. */
    static final Duration TIME_PRECISION = Duration.ofSeconds(1);

    private ProcessEndRule() {}

    /**
     * The verdict on {@code held}'s holder, given the binding found beside it ({@code binding}, empty when none was
     * written) and its pod as the API server shows it ({@code pod}, empty when not found).
     */
    public static ProcessEnd judge(LeaseRecord held, Optional<HolderProcess> binding, Optional<PodReport> pod) {
        if (held == null || !held.hasHolder()) {
            return new ProcessEnd.Unknown("the lease has no holder");
        }
        if (binding.isEmpty()) {
            return new ProcessEnd.Unknown("the holder wrote no process binding");
        }
        HolderProcess process = binding.get();
        if (!process.identity().equals(held.holderIdentity())) {
            return new ProcessEnd.Unknown(
                    "the process binding names " + process.identity() + ", not the holder " + held.holderIdentity());
        }
        if (process.since() == null) {
            return new ProcessEnd.Unknown("the process binding has no clock reading");
        }
        if (pod.isEmpty()) {
            return new ProcessEnd.Unknown("pod " + process.namespace() + "/" + process.pod()
                    + " not found: a missing pod proves nothing about its process");
        }
        PodReport report = pod.get();
        if (!report.uid().equals(process.podUid())
                || !report.name().equals(process.pod())
                || !report.namespace().equals(process.namespace())) {
            return new ProcessEnd.Unknown("pod " + report.namespace() + "/" + report.name() + " (uid " + report.uid()
                    + ") is not the holder's pod (uid " + process.podUid() + ")");
        }
        Optional<ContainerEnd> run = report.ended().stream()
                .filter(end -> end.container().equals(process.container()))
                .filter(end -> isHolderRun(end, process.since(), held.acquireTime()))
                .findFirst();
        return run.<ProcessEnd>map(end ->
                        new ProcessEnd.Ended(report.namespace() + "/" + report.name(), end, ProcessEnd.Reason.of(end)))
                .orElseGet(() -> new ProcessEnd.Unknown("no ended run of container " + process.container() + " of pod "
                        + report.namespace() + "/" + report.name() + " was running at " + process.since()));
    }

    /** The run was running at {@code since} and ended after the lease was acquired (see the class comment). */
    static boolean isHolderRun(ContainerEnd end, Instant since, Instant acquireTime) {
        return end.containerId() != null
                && !end.containerId().isBlank()
                && end.startedAt() != null
                && end.finishedAt() != null
                && !end.startedAt().plus(TIME_PRECISION).isAfter(since)
                && since.isBefore(end.finishedAt())
                && (acquireTime == null || acquireTime.isBefore(end.finishedAt()));
    }
}
