package dev.tenure.maintenance.machine;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

/**
 * Sends the {@link NodeMarks} patches. Each patch is computed from a fresh read and guarded by that
 * read's resourceVersion; when another writer got in between (409, or 422 for a failed test op) it is
 * recomputed from a new read, a few times, then left to the next reconcile.
 */
public final class NodeCordon {

    private static final int ATTEMPTS = 5;
    private final KubernetesClient client;

    NodeCordon(KubernetesClient client) {
        this.client = client;
    }

    /** What {@link #mark} did: whether the cordon and taints, and the condition, were changed. */
    record Marked(boolean cordonChanged, boolean conditionChanged) {
        boolean changed() {
            return cordonChanged || conditionChanged;
        }
    }

    /**
     * A Node write the API server refused or failed (after the retries of a race): which write, what it left on
     * the node, and the API's answer in one line ({@link ApiErrors}).
     */
    public static final class NodeWriteFailed extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final transient KubernetesClientException cause;
        private final boolean cordoned;

        NodeWriteFailed(String message, boolean cordoned, KubernetesClientException cause) {
            super(message, cause);
            this.cause = cause;
            this.cordoned = cordoned;
        }

        /** The cordon and taints are on the node (only the condition write failed). */
        public boolean cordoned() {
            return cordoned;
        }

        /** The HTTP code of the failed write (0: no answer). */
        public int code() {
            return cause.getCode();
        }
    }

    /**
     * Cordons, taints and sets the condition.
     *
     * @throws NodeWriteFailed when a write failed: the message says which, and what the node carries now
     */
    Marked mark(String nodeName, String reason, String message, Instant now) {
        boolean cordonChanged;
        try {
            cordonChanged = patchNode(nodeName, NodeMarks::markPatch, false);
        } catch (KubernetesClientException e) {
            throw new NodeWriteFailed(
                    failedCall(e, nodeName, "") + " to cordon and taint it failed: " + ApiErrors.oneLine(e), false, e);
        }
        try {
            boolean conditionChanged =
                    patchNode(nodeName, node -> NodeMarks.conditionPatch(node, reason, message, now), true);
            return new Marked(cordonChanged, conditionChanged);
        } catch (KubernetesClientException e) {
            throw new NodeWriteFailed(
                    "node " + nodeName + " is cordoned and tainted " + NodeMarks.DRAIN_TAINT.getKey()
                            + ":NoSchedule, but " + failedCall(e, nodeName, "/status") + " to write its condition "
                            + NodeMarks.CONDITION_TYPE + " failed: " + ApiErrors.oneLine(e),
                    true,
                    e);
        }
    }

    /** The call that failed, as kubectl -v would name it: the read before a patch, or the patch. */
    private static String failedCall(KubernetesClientException e, String nodeName, String subresource) {
        return (e instanceof ReadFailed ? "GET nodes/" + nodeName : "PATCH nodes/" + nodeName + subresource);
    }

    /** The read a patch is computed from failed (not the patch): kept apart so the message names the right call. */
    private static final class ReadFailed extends KubernetesClientException {
        private static final long serialVersionUID = 1L;

        ReadFailed(KubernetesClientException e) {
            super(e.getMessage(), e.getCode(), e.getStatus());
        }
    }

    /** The node as the API server has it now; null when it is gone. */
    Node read(String nodeName) {
        return client.nodes().withName(nodeName).get();
    }

    /**
     * What {@link #unmark} did: whether anything changed, and why the node was kept cordoned though it was schedulable
     * before ({@link NodeMarks#keptCordoned}; empty when it was not, or was cordoned before anyway).
     */
    record Unmarked(boolean changed, List<String> keptCordoned) {}

    /** Restores the prior state and removes the condition; nothing changed if the node is gone. */
    Unmarked unmark(String nodeName) {
        boolean changed = patchNode(nodeName, NodeMarks::conditionRemovalPatch, true);
        AtomicReference<List<String>> kept = new AtomicReference<>(List.of());
        changed |= patchNode(
                nodeName,
                node -> {
                    boolean wasCordoned = NodeMarks.PriorState.fromNode(node)
                            .map(NodeMarks.PriorState::unschedulable)
                            .orElse(true);
                    kept.set(wasCordoned ? List.of() : NodeMarks.keptCordoned(node));
                    return NodeMarks.restorePatch(node);
                },
                false);
        return new Unmarked(changed, changed ? kept.get() : List.of());
    }

    private boolean patchNode(String nodeName, Function<Node, Optional<String>> plan, boolean status) {
        for (int attempt = 1; ; attempt++) {
            Node node;
            try {
                node = client.nodes().withName(nodeName).get();
            } catch (KubernetesClientException e) {
                throw new ReadFailed(e);
            }
            if (node == null) {
                return false;
            }
            Optional<String> patch = plan.apply(node);
            if (patch.isEmpty()) {
                return false;
            }
            try {
                var resource = client.nodes().withName(nodeName);
                PatchContext json = PatchContext.of(PatchType.JSON);
                if (status) {
                    resource.subresource("status").patch(json, patch.get());
                } else {
                    resource.patch(json, patch.get());
                }
                return true;
            } catch (KubernetesClientException e) {
                boolean raced = e.getCode() == 409 || e.getCode() == 422;
                if (e.getCode() == 404) {
                    return false;
                }
                if (!raced || attempt >= ATTEMPTS) {
                    throw e;
                }
            }
        }
    }
}
