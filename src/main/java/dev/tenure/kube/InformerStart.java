package dev.tenure.kube;

import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.Set;
import java.util.function.Supplier;

/** The start of a shared informer of the operator's ({@link NodeCache}, {@link BudgetCache}). */
final class InformerStart {

    static final int FIRST_LIST_ATTEMPTS = 5;

    private InformerStart() {}

    /**
     * A running informer, made by {@code make}. Its first list is tried again, a few times, after an answer that says
     * "try again" (409, 429, 500, 502, 503, 504): one refused list must not fail the operator's start (a door chaos run
     * failed on one injected 409); no access to the resource, or no API server, fails at once. fabric8's exception
     * handler is not asked about the first list of {@code run()}, so the retry is here. Nothing is left running when
     * it throws.
     */
    static <T> SharedIndexInformer<T> run(Supplier<SharedIndexInformer<T>> make, String what) {
        for (int attempt = 1; ; attempt++) {
            SharedIndexInformer<T> started = make.get();
            try {
                started.run();
                return started;
            } catch (RuntimeException e) {
                started.close();
                if (attempt >= FIRST_LIST_ATTEMPTS || !tryAgain(e)) {
                    throw e;
                }
            }
            try {
                Thread.sleep(200L * attempt);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while starting " + what, e);
            }
        }
    }

    private static boolean tryAgain(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof KubernetesClientException k) {
                return Set.of(409, 429, 500, 502, 503, 504).contains(k.getCode());
            }
        }
        return false;
    }
}
