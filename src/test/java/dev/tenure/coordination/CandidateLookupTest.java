package dev.tenure.coordination;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.election.CandidateRecord;
import dev.tenure.election.LeaseKey;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.client.informers.impl.cache.CacheImpl;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * How the controller finds the candidates of a Lease in the informer cache ({@link CoordinationController#candidatesOf}).
 * The cache is fabric8's own (the one every informer uses), rewritten by a second thread the way a relist or a watch
 * restart rewrites it: the same object put again. An informer index read can come back empty in the middle of such a
 * put (the stall this guards against); the lookup must not, not once.
 */
class CandidateLookupTest {

    private static final LeaseKey KEY = new LeaseKey("kube-system", "component-A");

    private static GenericKubernetesResource candidate(String namespace, String name, String leaseName) {
        return new GenericKubernetesResourceBuilder()
                .withApiVersion("coordination.k8s.io/v1beta1")
                .withKind("LeaseCandidate")
                .withNewMetadata()
                .withNamespace(namespace)
                .withName(name)
                .withResourceVersion("7")
                .endMetadata()
                .withAdditionalProperties(Map.of(
                        "spec",
                        Map.of(
                                "leaseName",
                                leaseName,
                                "binaryVersion",
                                "1.31.0",
                                "emulationVersion",
                                "1.31.0",
                                "strategy",
                                OldestEmulationVersion.NAME)))
                .build();
    }

    @Test
    void findsTheLeasesCandidatesOnly() {
        CacheImpl<GenericKubernetesResource> cache = new CacheImpl<>();
        cache.put(candidate("kube-system", "a-1", "component-A"));
        cache.put(candidate("kube-system", "a-2", "component-A"));
        cache.put(candidate("kube-system", "b-1", "component-B"));
        cache.put(candidate("other", "a-1", "component-A"));

        List<CandidateRecord> found = CoordinationController.candidatesOf(cache, KEY);

        assertThat(found).extracting(CandidateRecord::name).containsExactlyInAnyOrder("a-1", "a-2");
        assertThat(found).allSatisfy(c -> assertThat(c.namespace()).isEqualTo("kube-system"));
    }

    @Test
    void aCandidateBeingRewrittenIsNeverMissed() throws InterruptedException {
        CacheImpl<GenericKubernetesResource> cache = new CacheImpl<>();
        // an index like the one the controller used to read; its updates are what opened the window
        cache.addIndexers(Map.of(
                "lease",
                r -> List.of(r.getMetadata().getNamespace() + "/"
                        + ((Map<?, ?>) r.getAdditionalProperties().get("spec")).get("leaseName"))));
        cache.put(candidate("kube-system", "a-1", "component-A"));
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong rewrites = new AtomicLong();
        Thread relist = new Thread(
                () -> {
                    while (!stop.get()) {
                        cache.put(candidate("kube-system", "a-1", "component-A"));
                        rewrites.incrementAndGet();
                    }
                },
                "relist");
        relist.start();
        int misses = 0;
        try {
            for (int i = 0; i < 200_000; i++) {
                if (CoordinationController.candidatesOf(cache, KEY).size() != 1) {
                    misses++;
                }
            }
        } finally {
            stop.set(true);
            relist.join();
        }
        assertThat(rewrites.get())
                .as("the cache was rewritten while it was read")
                .isPositive();
        assertThat(misses)
                .as("lookups that missed the candidate during %d rewrites", rewrites.get())
                .isZero();
    }

    private static io.fabric8.kubernetes.api.model.Pod pod(String namespace, String name, String node) {
        return new io.fabric8.kubernetes.api.model.PodBuilder()
                .withNewMetadata()
                .withNamespace(namespace)
                .withName(name)
                .endMetadata()
                .withNewSpec()
                .withNodeName(node)
                .endSpec()
                .build();
    }

    private static CandidateRecord record(String name, Map<String, String> labels) {
        GenericKubernetesResource g = candidate("kube-system", name, "component-A");
        g.getMetadata().setLabels(labels);
        return dev.tenure.election.kube.KubeLeaseCandidateStore.toRecord(g);
    }

    /** Issue 50 item 10: a candidate's node from the Pod cache; "not known" is never read as "on no node". */
    @Test
    void aCandidatesPlaceComesFromItsLabelOrThePodCacheAndUnknownStaysUnknown() {
        CacheImpl<io.fabric8.kubernetes.api.model.Pod> pods = new CacheImpl<>();
        pods.put(pod("kube-system", "a-1", "n2"));
        pods.put(pod("kube-system", "a-2", null));

        assertThat(CoordinationController.placeOf(record("a-1", Map.of(CandidateRecord.NODE_LABEL, "n1")), pods, true))
                .as("the label wins")
                .isEqualTo(CoordinationController.CandidatePlace.on("n1"));
        assertThat(CoordinationController.placeOf(record("a-1", Map.of()), pods, true))
                .as("its Pod's node")
                .isEqualTo(CoordinationController.CandidatePlace.on("n2"));
        assertThat(CoordinationController.placeOf(record("a-2", Map.of()), pods, true))
                .as("a Pod not scheduled: on no node, known")
                .isEqualTo(CoordinationController.CandidatePlace.NOWHERE);
        assertThat(CoordinationController.placeOf(record("a-3", Map.of()), pods, true))
                .as("no Pod of its name: on no node, known")
                .isEqualTo(CoordinationController.CandidatePlace.NOWHERE);
        assertThat(CoordinationController.placeOf(record("a-1", Map.of()), pods, false))
                .as("the cache has not listed: unknown")
                .isEqualTo(CoordinationController.CandidatePlace.UNKNOWN);
    }
}
