package dev.tenure.election.kube;

import dev.tenure.election.ContainerEnd;
import dev.tenure.election.HolderProcess;
import dev.tenure.election.LeaseKey;
import dev.tenure.election.LeaseRecord;
import dev.tenure.election.PodReport;
import dev.tenure.election.ProcessEnd;
import dev.tenure.election.ProcessEndRule;
import dev.tenure.election.ProcessEvidence;
import io.fabric8.kubernetes.api.model.ContainerStateTerminated;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Instant;
import java.time.InstantSource;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * {@link ProcessEvidence} from the pods of one namespace (the operator's own): an informer on them (RBAC: list and
 * watch pods in that namespace, nothing more), the holder's binding from the Lease's annotation
 * ({@link KubeLeaseStore#announcing}), and {@link ProcessEndRule} to judge. A holder whose pod is in another
 * namespace, or whose binding is missing, is never judged dead.
 *
 * <p>Reads come from the informer's cache: it may lag the API server, which only delays the evidence
 * ({@link ProcessEndRule} explains why lag never invents it).
 */
public final class KubeProcessEvidence implements ProcessEvidence, AutoCloseable {
    private static final Logger LOG = Logger.getLogger(KubeProcessEvidence.class.getName());
    /** The reason of the Event recorded on the Lease when it is taken over on evidence. */
    public static final String TAKEOVER_REASON = "LeaderProcessEnded";

    private final KubernetesClient client;
    private final String namespace;
    private final KubeLeaseStore leases;
    private final String reporter;
    private final InstantSource clock;
    private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
    private volatile SharedIndexInformer<Pod> pods;

    /**
     * @param namespace the only namespace whose pods are read (the operator's)
     * @param leases the store the elector reads the Lease with (its copy carries the holder's binding)
     * @param reporter who records the takeover Event (the new holder's identity)
     * @param clock stamps the Event
     */
    public KubeProcessEvidence(
            KubernetesClient client, String namespace, KubeLeaseStore leases, String reporter, InstantSource clock) {
        this.client = client;
        this.namespace = namespace;
        this.leases = leases;
        this.reporter = reporter;
        this.clock = clock;
    }

    /** Starts the pod informer; the evidence is {@link ProcessEnd.Unknown} until it has synced. */
    public KubeProcessEvidence start() {
        SharedIndexInformer<Pod> informer = client.pods().inNamespace(namespace).runnableInformer(0);
        informer.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Pod pod) {
                changed(pod);
            }

            @Override
            public void onUpdate(Pod before, Pod after) {
                changed(after);
            }

            @Override
            public void onDelete(Pod pod, boolean finalStateUnknown) {}
        });
        pods = informer;
        // not waited for: until it has synced (or if it cannot, e.g. RBAC), every lease is waited out
        informer.start().whenComplete((ok, e) -> {
            if (e != null) {
                LOG.log(Level.WARNING, "cannot read the pods of " + namespace + ": every lease is waited out", e);
            }
        });
        return this;
    }

    private void changed(Pod pod) {
        if (!endedRuns(pod).isEmpty()) {
            listeners.forEach(Runnable::run);
        }
    }

    @Override
    public ProcessEnd judge(LeaseKey lease, LeaseRecord held) {
        SharedIndexInformer<Pod> informer = pods;
        if (informer == null || !informer.hasSynced()) {
            return new ProcessEnd.Unknown("the pods of " + namespace + " are not read yet");
        }
        Optional<HolderProcess> binding = leases.holderProcess(lease, held);
        if (binding.isPresent() && !binding.get().namespace().equals(namespace)) {
            return new ProcessEnd.Unknown("the holder's pod is in namespace "
                    + binding.get().namespace() + ", and only pods of " + namespace + " are read");
        }
        Optional<PodReport> pod = binding.map(b -> informer.getStore().getByKey(namespace + "/" + b.pod()))
                .map(KubeProcessEvidence::report);
        return ProcessEndRule.judge(held, binding, pod);
    }

    @Override
    public AutoCloseable onChange(Runnable changed) {
        listeners.add(changed);
        return () -> listeners.remove(changed);
    }

    /** Records the takeover as an Event on the Lease (type Warning, reason {@link #TAKEOVER_REASON}). */
    @Override
    public void tookOver(LeaseKey lease, LeaseRecord previous, LeaseRecord taken, ProcessEnd.Ended evidence) {
        String now = DateTimeFormatter.ISO_INSTANT.format(clock.instant().atOffset(ZoneOffset.UTC));
        try {
            client.v1()
                    .events()
                    .inNamespace(lease.namespace())
                    .resource(new EventBuilder()
                            .withNewMetadata()
                            .withGenerateName(lease.name() + ".")
                            .withNamespace(lease.namespace())
                            .endMetadata()
                            .withNewInvolvedObject()
                            .withApiVersion("coordination.k8s.io/v1")
                            .withKind("Lease")
                            .withNamespace(lease.namespace())
                            .withName(lease.name())
                            .endInvolvedObject()
                            .withType("Warning")
                            .withReason(TAKEOVER_REASON)
                            .withMessage(reporter + " took the lease over from " + previous.holderIdentity()
                                    + " before it expired (transitions " + taken.leaseTransitions() + "): "
                                    + evidence.describe())
                            .withNewSource()
                            .withComponent("tenure-leader-election")
                            .endSource()
                            .withReportingComponent("tenure.dev/leader-election")
                            .withReportingInstance(reporter)
                            .withFirstTimestamp(now)
                            .withLastTimestamp(now)
                            .withCount(1)
                            .build())
                    .create();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "could not record the takeover of " + lease + " as an Event", e);
        }
    }

    @Override
    public void close() {
        SharedIndexInformer<Pod> informer = pods;
        if (informer != null) {
            informer.close();
        }
    }

    // ------------------------------------------------------------------ mapping

    /** What {@link ProcessEndRule} reads of a pod: its UID and its containers' ended runs. */
    public static PodReport report(Pod pod) {
        return new PodReport(
                pod.getMetadata().getNamespace(),
                pod.getMetadata().getName(),
                String.valueOf(pod.getMetadata().getUid()),
                endedRuns(pod));
    }

    /** Every ended run the status shows: each container's {@code state.terminated} and {@code lastState.terminated}. */
    static List<ContainerEnd> endedRuns(Pod pod) {
        List<ContainerEnd> ended = new ArrayList<>();
        if (pod.getStatus() == null || pod.getStatus().getContainerStatuses() == null) {
            return ended;
        }
        for (ContainerStatus c : pod.getStatus().getContainerStatuses()) {
            if (c.getState() != null && c.getState().getTerminated() != null) {
                ended.add(end(c.getName(), c.getState().getTerminated()));
            }
            if (c.getLastState() != null && c.getLastState().getTerminated() != null) {
                ended.add(end(c.getName(), c.getLastState().getTerminated()));
            }
        }
        return ended;
    }

    private static ContainerEnd end(String container, ContainerStateTerminated t) {
        return new ContainerEnd(
                container,
                t.getContainerID(),
                time(t.getStartedAt()),
                time(t.getFinishedAt()),
                t.getExitCode() == null ? -1 : t.getExitCode(),
                t.getReason());
    }

    private static Instant time(String value) {
        if (value == null || value.isBlank()) {
            return null;
        }
        try {
            return Instant.parse(value.toUpperCase(Locale.ROOT));
        } catch (DateTimeParseException e) {
            return null; // an unreadable time is no evidence
        }
    }
}
