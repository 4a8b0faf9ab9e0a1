package dev.tenure.maintenance.drain;

import dev.tenure.election.WorkFence;
import dev.tenure.maintenance.drain.DrainPlan.PodVerdict;
import io.fabric8.kubernetes.api.model.DeleteOptionsBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusCause;
import io.fabric8.kubernetes.api.model.policy.v1.Eviction;
import io.fabric8.kubernetes.api.model.policy.v1.EvictionBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.utils.URLUtils;
import java.io.IOException;
import java.net.URL;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;

/**
 * The drain's API calls: list the node's pods, look up their DaemonSets, evict or delete a batch; and what their
 * answers told, for the messages: each pod's last PodDisruptionBudget refusal (the final "timed out" message names
 * the budgets), and which stuck pods were already reported (one event per pod, not one per poll). Both are
 * bounded and kept in memory only: a restarted operator reports a stuck pod once more.
 */
public final class PodDrain {

    /** Pods remembered at most, per memory: the oldest entries go first. */
    static final int REMEMBERED = 10_000;

    private final KubernetesClient client;
    private final ExecutorService evictions;
    private final Map<String, String> refusals = bounded();
    private final Map<String, String> reportedStuck = bounded();
    private final Map<String, String> reportedWarnings = bounded();
    private final Map<String, String> reportedBlocked = bounded();
    /** "namespace/name" → UID of the pods this drain evicted or deleted: a same-named successor is a recreated pod. */
    private final Map<String, String> evicted = bounded();

    /** kube-apiserver's 500 for a pod two budgets select (pkg/registry/core/pod/storage/eviction.go). */
    static final String TWO_BUDGETS_MESSAGE = "more than one PodDisruptionBudget";
    /** Ends a refusal that was a 403 with cause NamespaceTerminating (plugin/pkg/admission/namespace/lifecycle). */
    static final String NAMESPACE_TERMINATING_SUFFIX = " (HTTP 403, namespace terminating)";
    /**
     * Ends a refusal that was a 409 "Precondition failed: UID in precondition: …" (apimachinery's storage
     * preconditions): the pod was replaced by a same-named one. Any other 409 stays a failure.
     */
    static final String PRECONDITION_SUFFIX = " (HTTP 409, UID precondition failed)";

    public PodDrain(KubernetesClient client, ExecutorService evictions) {
        this.client = client;
        this.evictions = evictions;
    }

    /** Pod uid → the message of its last eviction a PodDisruptionBudget refused; a removed pod is forgotten. */
    public Map<String, String> refusals() {
        synchronized (refusals) {
            return Map.copyOf(refusals);
        }
    }

    /** "namespace/name" → UID of the pods this drain evicted or deleted (bounded, in memory). */
    public Map<String, String> evicted() {
        synchronized (evicted) {
            return Map.copyOf(evicted);
        }
    }

    /** Of {@code blocked}, those whose pod (UID) and cause were not reported before: one event per pod and cause. */
    public List<BlockedPods.Blocked> firstBlocked(Map<String, String> uidByKey, List<BlockedPods.Blocked> blocked) {
        synchronized (reportedBlocked) {
            return blocked.stream()
                    .filter(b ->
                            reportedBlocked.put(uidByKey.getOrDefault(b.pod(), b.pod()) + " " + b.cause(), "") == null)
                    .toList();
        }
    }

    /** Of {@code warnings} (a plan's, each naming its pod and value), those not reported before: each is shown once. */
    public List<String> firstWarnings(List<String> warnings) {
        synchronized (reportedWarnings) {
            return warnings.stream()
                    .filter(w -> reportedWarnings.put(w, w) == null)
                    .toList();
        }
    }

    /** Of {@code stuck}, the pods not reported before; they count as reported from now on. */
    public List<PodVerdict> firstReports(List<PodVerdict> stuck) {
        synchronized (reportedStuck) {
            return stuck.stream()
                    .filter(v -> reportedStuck.put(idOf(v), v.key()) == null)
                    .toList();
        }
    }

    private static String idOf(PodVerdict v) {
        return v.uid() != null ? v.uid() : v.key();
    }

    private static Map<String, String> bounded() {
        return new LinkedHashMap<>() {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, String> eldest) {
                return size() > REMEMBERED;
            }
        };
    }

    private Outcome remembered(Outcome outcome) {
        if (outcome.pod().uid() != null && (outcome.result() == Result.EVICTED || outcome.result() == Result.DELETED)) {
            synchronized (evicted) {
                evicted.put(outcome.pod().key(), outcome.pod().uid());
            }
        }
        if (outcome.pod().uid() != null) {
            synchronized (refusals) {
                if (outcome.result() == Result.BLOCKED) {
                    refusals.put(outcome.pod().uid(), outcome.message());
                } else if (outcome.result() != Result.FAILED && outcome.result() != Result.NOT_SENT) {
                    refusals.remove(outcome.pod().uid());
                }
            }
        }
        return outcome;
    }

    public enum Result {
        EVICTED,
        DELETED,
        GONE,
        BLOCKED,
        /** The API server answered with an error (or did not answer): the pod backs off ({@link DrainPacing#after}). */
        FAILED,
        /**
         * Never sent: the write was refused on this side, past the node lease's (or the window's, or the term's) fence
         * ({@link WorkFence#writeBudget}). No answer of the API server: no back-off, the next step sends it.
         */
        NOT_SENT
    }

    /**
     * What one eviction (or delete) came to.
     *
     * @param retryAfter for a {@link Result#FAILED} answer, the server's Retry-After (header or {@code
     *     details.retryAfterSeconds}) when it sent one
     */
    public record Outcome(PodVerdict pod, Result result, String message, Optional<Duration> retryAfter) {
        public Outcome(PodVerdict pod, Result result, String message) {
            this(pod, result, message, Optional.empty());
        }

        /** What this outcome is to its pod's back-off ({@link DrainPacing#after}). */
        public DrainPacing.Attempt attempt() {
            return switch (result) {
                case FAILED -> DrainPacing.Attempt.FAILED;
                case NOT_SENT -> DrainPacing.Attempt.NOT_SENT;
                case EVICTED, DELETED, GONE, BLOCKED -> DrainPacing.Attempt.ANSWERED;
            };
        }
    }

    /** The cause type kube-apiserver puts on a 429 refusing an eviction for a budget ({@code policyv1.DisruptionBudgetCause}). */
    static final String DISRUPTION_BUDGET_CAUSE = "DisruptionBudget";

    /**
     * Whether a 429 answering an eviction is a PodDisruptionBudget's refusal rather than API Priority and Fairness
     * (or any other throttling), which answers 429 too: kube-apiserver's eviction REST handler puts a cause of type
     * {@value #DISRUPTION_BUDGET_CAUSE} on every budget refusal (pkg/registry/core/pod/storage/eviction.go), and its
     * message speaks of the pod's disruption budget (servers older than the cause).
     */
    static boolean isBudgetRefusal(Status status) {
        if (status == null) {
            return false;
        }
        if (hasCause(status, DISRUPTION_BUDGET_CAUSE)) {
            return true;
        }
        String message = status.getMessage();
        return message != null && message.toLowerCase(java.util.Locale.ROOT).contains("disruption budget");
    }

    /**
     * The server's Retry-After: the header's delay in seconds (RFC 9110 10.2.3; an HTTP date is not read), else the
     * Status's {@code details.retryAfterSeconds}; empty when neither says a positive number.
     */
    static Optional<Duration> retryAfter(String header, Status status) {
        if (header != null) {
            try {
                long seconds = Long.parseLong(header.trim());
                if (seconds > 0) {
                    return Optional.of(Duration.ofSeconds(seconds));
                }
            } catch (NumberFormatException e) {
                // an HTTP date, or garbage: fall back to the Status
            }
        }
        Integer seconds = status == null || status.getDetails() == null
                ? null
                : status.getDetails().getRetryAfterSeconds();
        return seconds != null && seconds > 0 ? Optional.of(Duration.ofSeconds(seconds)) : Optional.empty();
    }

    /** All pods bound to the node, across namespaces (kubectl: field selector spec.nodeName). */
    public List<Pod> podsOn(String nodeName) {
        return client.pods()
                .inAnyNamespace()
                .withField("spec.nodeName", nodeName)
                .list()
                .getItems();
    }

    /**
     * The node's volumes after the drain ({@link VolumeDetach#onNode}): the VolumeAttachments naming the node
     * ({@code spec.nodeName}; kube-apiserver has no field selector for it, so all are listed and filtered here, as
     * Cluster API's wait does), the claim of each one's PersistentVolume (one GET each), the pods still on the node and
     * the node's Ready condition.
     */
    public VolumeDetach.OnNode volumesOn(String nodeName) {
        List<io.fabric8.kubernetes.api.model.storage.VolumeAttachment> attachments =
                client.storage().v1().volumeAttachments().list().getItems().stream()
                        .filter(va -> va.getSpec() != null
                                && nodeName.equals(va.getSpec().getNodeName()))
                        .toList();
        Map<String, String> claims = new java.util.HashMap<>();
        for (var va : attachments) {
            String pv = va.getSpec().getSource() == null
                    ? null
                    : va.getSpec().getSource().getPersistentVolumeName();
            if (pv == null || claims.containsKey(pv)) {
                continue;
            }
            var volume = client.persistentVolumes().withName(pv).get();
            var claim = volume == null || volume.getSpec() == null
                    ? null
                    : volume.getSpec().getClaimRef();
            if (claim != null && "PersistentVolumeClaim".equals(claim.getKind())) {
                claims.put(pv, claim.getNamespace() + "/" + claim.getName());
            }
        }
        List<Pod> pods = attachments.isEmpty() ? List.of() : podsOn(nodeName);
        return VolumeDetach.onNode(client.nodes().withName(nodeName).get(), attachments, claims, pods);
    }

    /** The PodDisruptionBudgets of these pods' namespaces (one list each), for a preview. */
    public Map<String, List<io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget>> budgetsOf(List<Pod> pods) {
        Map<String, List<io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget>> budgets =
                new java.util.HashMap<>();
        for (Pod pod : pods) {
            String ns = pod.getMetadata().getNamespace();
            if (!budgets.containsKey(ns)) {
                budgets.put(
                        ns,
                        client.policy()
                                .v1()
                                .podDisruptionBudget()
                                .inNamespace(ns)
                                .list()
                                .getItems());
            }
        }
        return budgets;
    }

    /** The labels of these pods' namespaces (one GET each), for drain rules that select by namespace. */
    public Map<String, Map<String, String>> namespaceLabels(List<Pod> pods) {
        Map<String, Map<String, String>> labels = new java.util.HashMap<>();
        for (Pod pod : pods) {
            String ns = pod.getMetadata().getNamespace();
            if (!labels.containsKey(ns)) {
                var namespace = client.namespaces().withName(ns).get();
                labels.put(
                        ns,
                        namespace == null || namespace.getMetadata().getLabels() == null
                                ? Map.of()
                                : Map.copyOf(namespace.getMetadata().getLabels()));
            }
        }
        return labels;
    }

    /** "namespace/name" of the DaemonSets controlling these pods that still exist (kubectl daemonSetFilter's GET). */
    public Set<String> existingDaemonSets(List<Pod> pods) {
        Set<String> asked = new HashSet<>();
        Set<String> existing = new HashSet<>();
        for (Pod pod : pods) {
            OwnerReference c = PodFilters.controllerOf(pod);
            if (!PodFilters.isDaemonSet(c)) {
                continue;
            }
            String key = pod.getMetadata().getNamespace() + "/" + c.getName();
            if (asked.add(key)
                    && client.apps()
                                    .daemonSets()
                                    .inNamespace(pod.getMetadata().getNamespace())
                                    .withName(c.getName())
                                    .get()
                            != null) {
                existing.add(key);
            }
        }
        return existing;
    }

    /**
     * Evicts (or deletes) the batch in parallel on the eviction pool and waits for the answers. The wait is
     * interruptible (a stopping operator interrupts its reconcile threads): the calls not yet sent are cancelled and
     * the interrupt surfaces as a {@link KubernetesClientException}, so the reconcile ends instead of waiting on.
     */
    public List<Outcome> remove(List<PodVerdict> batch, DrainOptions options) {
        List<Future<Outcome>> futures = new ArrayList<>();
        for (PodVerdict pod : batch) {
            // the node lease's bound on this thread's writes goes with each eviction to the pool's thread
            futures.add(evictions.submit(WorkFence.carry(() -> remembered(removeOne(pod, options)))));
        }
        List<Outcome> outcomes = new ArrayList<>();
        try {
            for (Future<Outcome> f : futures) {
                outcomes.add(f.get());
            }
        } catch (InterruptedException e) {
            futures.forEach(f -> f.cancel(true));
            Thread.currentThread().interrupt();
            throw new KubernetesClientException("drain interrupted: the operator is stopping", e);
        } catch (ExecutionException e) {
            futures.forEach(f -> f.cancel(true));
            throw e.getCause() instanceof RuntimeException r ? r : new KubernetesClientException(e.getMessage(), e);
        }
        return outcomes;
    }

    private Outcome removeOne(PodVerdict pod, DrainOptions options) {
        var resource = client.pods().inNamespace(pod.namespace()).withName(pod.name());
        try {
            if (options.disableEviction()) {
                var deletable = options.gracePeriodSeconds() >= 0
                        ? resource.withGracePeriod(options.gracePeriodSeconds())
                        : resource;
                deletable.delete();
                return new Outcome(pod, Result.DELETED, "deleted");
            }
            DeleteOptionsBuilder delete = new DeleteOptionsBuilder();
            if (options.gracePeriodSeconds() >= 0) {
                delete.withGracePeriodSeconds(options.gracePeriodSeconds());
            }
            if (pod.uid() != null) {
                // Evict exactly the pod that was judged, not a same-named successor (kubectl does the same).
                delete.withNewPreconditions().withUid(pod.uid()).endPreconditions();
            }
            Eviction e = new EvictionBuilder()
                    .withNewMetadata()
                    .withName(pod.name())
                    .withNamespace(pod.namespace())
                    .endMetadata()
                    .withDeleteOptions(delete.build())
                    .build();
            return evict(pod, e);
        } catch (RuntimeException e) {
            Optional<WorkFence.OutsideTerm> refused = WorkFence.refusal(e);
            if (refused.isPresent()) {
                // past the term or the node lease: not sent, and not to be sent by this reconcile
                return notSent(pod, refused.get());
            }
            if (e instanceof KubernetesClientException k) {
                return failure(pod, k);
            }
            throw e;
        }
    }

    /** {@code pod}'s eviction (or delete) refused before it went out, by {@code refused}: the fence, not the API. */
    static Outcome notSent(PodVerdict pod, WorkFence.OutsideTerm refused) {
        return new Outcome(pod, Result.NOT_SENT, "not sent: " + refused.getMessage());
    }

    /** A delete (or a request that failed before an answer) as an outcome; a 429 is a budget's only when it says so. */
    static Outcome failure(PodVerdict pod, KubernetesClientException e) {
        if (e.getCode() == 404) {
            return new Outcome(pod, Result.GONE, "already gone");
        }
        if (e.getCode() == 429 && isBudgetRefusal(e.getStatus())) {
            return new Outcome(pod, Result.BLOCKED, "refused by a PodDisruptionBudget (429): " + brief(e));
        }
        return new Outcome(pod, Result.FAILED, refusedBy(e.getCode()) + brief(e), retryAfter(null, e.getStatus()));
    }

    /**
     * POSTs the Eviction. Not fabric8's {@code evict()}: it answers a 429 with {@code false} and drops the
     * Status, whose cause names the PodDisruptionBudget ("The disruption budget web needs 2 healthy pods and
     * has 2 currently"), which is what a user needs to see in lastError, as kubectl drain prints it.
     */
    private Outcome evict(PodVerdict pod, Eviction eviction) {
        try {
            URL url = new URL(URLUtils.join(
                    client.getMasterUrl().toString(),
                    "api",
                    "v1",
                    "namespaces",
                    pod.namespace(),
                    "pods",
                    pod.name(),
                    "eviction"));
            HttpRequest request = client.getHttpClient()
                    .newHttpRequestBuilder()
                    .url(url)
                    .post(
                            "application/json",
                            client.getKubernetesSerialization().asJson(eviction))
                    .build();
            HttpResponse<String> response =
                    client.getHttpClient().sendAsync(request, String.class).get();
            if (response.isSuccessful()) {
                return new Outcome(pod, Result.EVICTED, "evicted");
            }
            Status status = statusOf(response.body());
            String message = status != null && status.getMessage() != null ? status.getMessage() : response.body();
            Optional<Duration> retryAfter = retryAfter(response.header("Retry-After"), status);
            if (response.code() == 429 && isBudgetRefusal(status)) {
                List<String> causes = status == null
                                || status.getDetails() == null
                                || status.getDetails().getCauses() == null
                        ? List.of()
                        : status.getDetails().getCauses().stream()
                                .map(StatusCause::getMessage)
                                .filter(m -> m != null && !m.isBlank())
                                .toList();
                return new Outcome(
                        pod, Result.BLOCKED, message + (causes.isEmpty() ? "" : " " + String.join("; ", causes)));
            }
            if (response.code() == 404) {
                return new Outcome(pod, Result.GONE, "already gone");
            }
            // kube-apiserver's refusals that hold a pod rather than fail the drain: retried, explained (BlockedPods)
            if (response.code() == 500 && message.contains(TWO_BUDGETS_MESSAGE)) {
                return new Outcome(pod, Result.BLOCKED, cut(message) + " (HTTP 500)");
            }
            if (response.code() == 403 && hasCause(status, "NamespaceTerminating")) {
                return new Outcome(pod, Result.BLOCKED, cut(message) + NAMESPACE_TERMINATING_SUFFIX);
            }
            if (response.code() == 409 && message.contains("Precondition failed: UID")) {
                return new Outcome(pod, Result.BLOCKED, cut(message) + PRECONDITION_SUFFIX);
            }
            return new Outcome(pod, Result.FAILED, refusedBy(response.code()) + cut(message), retryAfter);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Outcome(pod, Result.FAILED, "interrupted");
        } catch (IOException | ExecutionException e) {
            Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
            return new Outcome(pod, Result.FAILED, "evicting: " + cause);
        }
    }

    /** How a failed eviction's message starts: a 429 that is not a budget's is the API server's throttling. */
    private static String refusedBy(int code) {
        return code == 429 ? "throttled by the API server (429, not a PodDisruptionBudget): " : "HTTP " + code + ": ";
    }

    private static boolean hasCause(Status status, String type) {
        return status != null
                && status.getDetails() != null
                && status.getDetails().getCauses() != null
                && status.getDetails().getCauses().stream().anyMatch(c -> type.equals(c.getReason()));
    }

    private Status statusOf(String body) {
        try {
            return body == null || body.isBlank()
                    ? null
                    : client.getKubernetesSerialization().unmarshal(body, Status.class);
        } catch (RuntimeException e) {
            return null;
        }
    }

    private static String cut(String m) {
        return m == null ? "" : m.length() > 200 ? m.substring(0, 200) : m;
    }

    private static String brief(KubernetesClientException e) {
        if (e.getStatus() != null && e.getStatus().getMessage() != null) {
            return e.getStatus().getMessage();
        }
        String m = String.valueOf(e.getMessage());
        return m.length() > 200 ? m.substring(0, 200) : m;
    }
}
