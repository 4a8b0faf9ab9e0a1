package dev.tenure.coordination;

import dev.tenure.election.CandidateRecord;
import dev.tenure.election.kube.KubeLeaseCandidateStore;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Stand-in for the processes behind LeaseCandidates (what client-go's candidate + leader elector do): live
 * candidates answer pings, the holder renews its Lease and releases it when preferredHolder names someone else.
 * A candidate {@link #kill}ed does nothing any more.
 */
final class SimulatedCandidates implements AutoCloseable {

    private final KubernetesClient client;
    private final ResourceDefinitionContext candidates;
    private final String namespace;
    private final String leaseName;
    private final Clock clock;
    private final Set<String> alive = ConcurrentHashMap.newKeySet();
    /** Held for one round of answers and renewals, and by {@link #kill}. */
    private final Object round = new Object();

    private volatile boolean followPreferredHolder = true;
    private final ScheduledExecutorService loop = Executors.newSingleThreadScheduledExecutor();

    SimulatedCandidates(KubernetesClient client, String namespace, String leaseName, Clock clock) {
        this(client, namespace, leaseName, clock, "v1beta1");
    }

    SimulatedCandidates(
            KubernetesClient client, String namespace, String leaseName, Clock clock, String candidateVersion) {
        this.candidates = LeaseCandidateApi.of(candidateVersion).context();
        this.client = client;
        this.namespace = namespace;
        this.leaseName = leaseName;
        this.clock = clock;
        loop.scheduleWithFixedDelay(this::tick, 50, 50, TimeUnit.MILLISECONDS);
    }

    void live(String... names) {
        alive.addAll(Set.of(names));
    }

    /**
     * The candidate does nothing from now on: returns once a round that saw it alive has ended, so a test that then
     * moves its clock on never meets a last renewal stamped with the moved clock (seen under load: the holder's
     * renewTime written 6 s ahead, after the kill, and its Lease never judged expired).
     */
    void kill(String name) {
        synchronized (round) {
            alive.remove(name);
        }
    }

    void followPreferredHolder(boolean follow) {
        this.followPreferredHolder = follow;
    }

    private void tick() {
        synchronized (round) {
            try {
                answerPings();
                actOnLease();
            } catch (KubernetesClientException conflictOrGone) {
                // next tick sees the new state
            }
        }
    }

    private void answerPings() {
        for (GenericKubernetesResource c : client.genericKubernetesResources(candidates)
                .inNamespace(namespace)
                .list()
                .getItems()) {
            CandidateRecord seen = KubeLeaseCandidateStore.toRecord(c);
            if (!alive.contains(seen.name()) || seen.pingTime() == null) {
                continue;
            }
            if (seen.renewTime() == null || seen.renewTime().isBefore(seen.pingTime())) {
                // an answer comes after the question, also when a test's clock stands still
                Instant answer = clock.instant().isAfter(seen.pingTime())
                        ? clock.instant()
                        : seen.pingTime().plusNanos(1000);
                client.genericKubernetesResources(candidates)
                        .inNamespace(namespace)
                        .withName(seen.name())
                        .patch(
                                PatchContext.of(PatchType.JSON_MERGE),
                                "{\"spec\":{\"renewTime\":\"" + KubeObjects.microTime(answer) + "\"}}");
            }
        }
    }

    private void actOnLease() {
        Lease lease = client.resources(Lease.class)
                .inNamespace(namespace)
                .withName(leaseName)
                .get();
        if (lease == null || lease.getSpec() == null || lease.getSpec().getHolderIdentity() == null) {
            return;
        }
        var spec = lease.getSpec();
        String holder = spec.getHolderIdentity();
        if (!alive.contains(holder)) {
            return;
        }
        if (followPreferredHolder
                && spec.getPreferredHolder() != null
                && !spec.getPreferredHolder().isEmpty()
                && !spec.getPreferredHolder().equals(holder)) {
            // client-go release: holder cleared, 1 s duration
            spec.setHolderIdentity(null);
            spec.setLeaseDurationSeconds(1);
            spec.setRenewTime(clock.instant().atZone(ZoneOffset.UTC));
        } else {
            spec.setRenewTime(clock.instant().atZone(ZoneOffset.UTC));
        }
        client.resources(Lease.class).inNamespace(namespace).resource(lease).update();
    }

    @Override
    public void close() {
        loop.shutdownNow();
    }
}
