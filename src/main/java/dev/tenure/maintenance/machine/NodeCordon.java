package dev.tenure.maintenance.machine;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Instant;
import java.util.Optional;
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

    /** Cordons, taints and sets the condition; true when anything changed. */
    boolean mark(String nodeName, String reason, String message, Instant now) {
        boolean changed = patchNode(nodeName, NodeMarks::markPatch, false);
        changed |= patchNode(nodeName, node -> NodeMarks.conditionPatch(node, reason, message, now), true);
        return changed;
    }

    /** Restores the prior state and removes the condition; true when anything changed; false if the node is gone. */
    boolean unmark(String nodeName) {
        boolean changed = patchNode(nodeName, NodeMarks::conditionRemovalPatch, true);
        changed |= patchNode(nodeName, NodeMarks::restorePatch, false);
        return changed;
    }

    private boolean patchNode(String nodeName, Function<Node, Optional<String>> plan, boolean status) {
        for (int attempt = 1; ; attempt++) {
            Node node = client.nodes().withName(nodeName).get();
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
