package dev.tenure.maintenance;

import dev.tenure.maintenance.DrainPlan.PodVerdict;
import io.fabric8.kubernetes.api.model.DeleteOptionsBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.policy.v1.Eviction;
import io.fabric8.kubernetes.api.model.policy.v1.EvictionBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;

/** The drain's API calls: list the node's pods, look up their DaemonSets, evict or delete a batch. */
final class PodDrain {

    private final KubernetesClient client;
    private final ExecutorService evictions;

    PodDrain(KubernetesClient client, ExecutorService evictions) {
        this.client = client;
        this.evictions = evictions;
    }

    enum Result { EVICTED, DELETED, GONE, BLOCKED, FAILED }

    record Outcome(PodVerdict pod, Result result, String message) {
    }

    /** All pods bound to the node, across namespaces (kubectl: field selector spec.nodeName). */
    List<Pod> podsOn(String nodeName) {
        return client.pods().inAnyNamespace().withField("spec.nodeName", nodeName).list().getItems();
    }

    /** "namespace/name" of the DaemonSets controlling these pods that still exist (kubectl daemonSetFilter's GET). */
    Set<String> existingDaemonSets(List<Pod> pods) {
        Set<String> asked = new HashSet<>();
        Set<String> existing = new HashSet<>();
        for (Pod pod : pods) {
            OwnerReference c = DrainPlan.controllerOf(pod);
            if (c == null || !"DaemonSet".equals(c.getKind())) {
                continue;
            }
            String key = pod.getMetadata().getNamespace() + "/" + c.getName();
            if (asked.add(key) && client.apps().daemonSets().inNamespace(pod.getMetadata().getNamespace())
                    .withName(c.getName()).get() != null) {
                existing.add(key);
            }
        }
        return existing;
    }

    /** Evicts (or deletes) the batch in parallel on the eviction pool and waits for the answers. */
    List<Outcome> remove(List<PodVerdict> batch, DrainOptions options) {
        List<CompletableFuture<Outcome>> futures = new ArrayList<>();
        for (PodVerdict pod : batch) {
            futures.add(CompletableFuture.supplyAsync(() -> removeOne(pod, options), evictions));
        }
        return futures.stream().map(CompletableFuture::join).toList();
    }

    private Outcome removeOne(PodVerdict pod, DrainOptions options) {
        var resource = client.pods().inNamespace(pod.namespace()).withName(pod.name());
        try {
            if (options.disableEviction()) {
                var deletable = options.gracePeriodSeconds() >= 0
                        ? resource.withGracePeriod(options.gracePeriodSeconds()) : resource;
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
            Eviction e = new EvictionBuilder().withNewMetadata().withName(pod.name())
                    .withNamespace(pod.namespace()).endMetadata().withDeleteOptions(delete.build()).build();
            boolean accepted = resource.evict(e);
            return accepted ? new Outcome(pod, Result.EVICTED, "evicted")
                    : new Outcome(pod, Result.BLOCKED, "refused by a PodDisruptionBudget (429)");
        } catch (KubernetesClientException e) {
            if (e.getCode() == 404) {
                return new Outcome(pod, Result.GONE, "already gone");
            }
            if (e.getCode() == 429) {
                return new Outcome(pod, Result.BLOCKED, "refused by a PodDisruptionBudget (429): " + brief(e));
            }
            return new Outcome(pod, Result.FAILED, "HTTP " + e.getCode() + ": " + brief(e));
        }
    }

    private static String brief(KubernetesClientException e) {
        if (e.getStatus() != null && e.getStatus().getMessage() != null) {
            return e.getStatus().getMessage();
        }
        String m = String.valueOf(e.getMessage());
        return m.length() > 200 ? m.substring(0, 200) : m;
    }
}
