package dev.tenure.testsupport;

import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.function.Supplier;

/**
 * client-go's {@code retry.RetryOnConflict} for test harnesses: fabric8's {@code edit()} patches with the
 * resourceVersion it has just read, so it is refused (409) when anyone wrote the object in between — on a Node, the
 * kubelet's status updates or the operator's own writes. A harness edit of a live object retries as a controller
 * would; on a loaded machine the window between the read and the patch is wide enough to be hit.
 */
public final class Conflicts {
    private static final int ATTEMPTS = 10;

    private Conflicts() {}

    /** Runs {@code edit} (a read-modify-write) again while it fails with 409 Conflict, at most 10 times. */
    public static <T> T retry(Supplier<T> edit) {
        for (int attempt = 1; ; attempt++) {
            try {
                return edit.get();
            } catch (KubernetesClientException e) {
                if (e.getCode() != 409 || attempt >= ATTEMPTS) {
                    throw e;
                }
            }
        }
    }
}
