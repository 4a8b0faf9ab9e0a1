package dev.tenure.maintenance.machine;

import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.api.PlacementPolicy;
import dev.tenure.maintenance.machine.MaintenanceMachine.Step;
import dev.tenure.placement.AwaitedPods;
import dev.tenure.placement.PlacementCluster;
import dev.tenure.placement.PlacementForecast;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodList;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.jboss.logging.Logger;

/**
 * The placement forecast before the cordon ({@code spec.drain.placement}, issue 49): the I/O around {@link
 * PlacementGate}. Reads on demand, once per forecast, and keeps nothing: every pod of the cluster in pages of {@value
 * #PAGE} (one LIST per page, each pod reduced at once to what the filters read by {@link PlacementCluster.Builder#pod},
 * the page then dropped), the Nodes from
 * the door's {@link PlacementView} (the shared Node cache: no request), what the drain's own plan would evict from the
 * node ({@link DrainStep#evictions}: its DaemonSet GETs, as the drain makes them), and for those pods only, each claim
 * they mount (a GET in the pod's namespace) and the PersistentVolume a claim is bound to (a GET): {@code VolumeBinding}
 * and {@code VolumeZone} read them, and a local volume or one whose node affinity selects only cordoned nodes makes
 * the pod Pinned. An unbound claim (WaitForFirstConsumer, or not provisioned yet) passes: the forecast does not model
 * provisioning. A claim or volume read that fails (403, 404, any error) is named in {@code
 * status.placement.volumesNotRead} and its pods are forecast without that volume: it never holds or stops a drain.
 * Namespace labels are read only when a required affinity term the forecast reads (of the pods to evict, or an
 * existing pod's anti-affinity) has a {@code namespaceSelector} other than null and {@code {}} ({@link
 * PlacementCluster.Builder#needsNamespaceLabels}): then one LIST of namespaces per forecast, none otherwise. A LIST
 * that fails (403, any error) is named in {@code status.placement.namespacesNotRead} and those terms are left out of
 * the forecast: it never holds or stops a drain either.
 */
final class PlacementStep {

    private static final Logger LOG = Logger.getLogger(PlacementStep.class);

    /** Pods per LIST page ({@code limit}), as kubectl and client-go's pager ask for them. */
    static final int PAGE = 500;

    private final KubernetesClient client;
    private final DrainStep drainStep;
    /** A maintenance that Wait holds makes its forecast again this often, besides when a Node or a pod changes. */
    private final Duration recheck;

    PlacementStep(KubernetesClient client, DrainStep drainStep, Duration recheck) {
        this.client = client;
        this.drainStep = drainStep;
        this.recheck = recheck;
    }

    /**
     * Before the lease and the cordon: the forecast into {@code s} ({@code status.placement}), its Warning once per
     * change, and with policy Wait and a pod that fits nowhere, the step that keeps the maintenance Pending (nothing
     * written to the node or its lease, nothing evicted); empty: go on to the lease.
     */
    Optional<Step> gate(
            MaintenanceRequest request,
            MaintenanceState prior,
            MaintenanceState.Builder s,
            PlacementView view,
            Instant now,
            MaintenanceEvents events) {
        PlacementPolicy policy = request.drain().placement();
        Made made;
        try {
            made = make(request, view, now);
        } catch (KubernetesClientException e) {
            String error = "placement forecast for node " + request.nodeName() + ": " + e.getMessage();
            if (policy == PlacementPolicy.Wait) {
                // never cordon on a forecast not made: wait, and say why
                return Optional.of(
                        new Step(s.phase(Phase.Pending).lastError(error).build(), Optional.of(recheck)));
            }
            LOG.warnf("%s (%s %s: the maintenance goes on)", error, view.policySetting(), policy);
            return Optional.empty();
        }
        PlacementForecast forecast = made.forecast();
        PlacementGate.Decision verdict =
                PlacementGate.decide(policy, view.policySetting(), request.nodeName(), forecast, prior.placement());
        view.awaiting()
                .accept(verdict.hold() ? AwaitedPods.of(made.stranded(), made.namespaceLabels()) : AwaitedPods.NONE);
        s.placement(verdict.status());
        verdict.warning().ifPresent(w -> events.emit(true, PlacementGate.WILL_NOT_FIT, w));
        verdict.released().ifPresent(r -> events.emit(false, PlacementGate.PODS_FIT, r));
        if (verdict.hold()) {
            return Optional.of(new Step(s.phase(Phase.Pending).lastError(null).build(), Optional.of(recheck)));
        }
        return Optional.empty();
    }

    /**
     * The forecast of the node's drain now: the pods its plan would evict, in wave order, placed on the cluster with
     * the node and {@link PlacementView#alsoCordoned()} cordoned.
     */
    PlacementForecast forecast(MaintenanceRequest request, PlacementView nodes, Instant now) {
        return make(request, nodes, now).forecast();
    }

    /**
     * A forecast made, with the pods it was made for and the namespace labels it read (empty: none needed; null: the
     * read failed).
     */
    private record Made(
            PlacementForecast forecast, List<Pod> evictions, Map<String, Map<String, String>> namespaceLabels) {
        /** The pods to evict that fit nowhere or are pinned. */
        List<Pod> stranded() {
            Set<String> keys = new HashSet<>();
            forecast.stranded().forEach(p -> keys.add(p.namespace() + "/" + p.name()));
            return evictions.stream()
                    .filter(p -> keys.contains(p.getMetadata().getNamespace() + "/"
                            + p.getMetadata().getName()))
                    .toList();
        }
    }

    private Made make(MaintenanceRequest request, PlacementView nodes, Instant now) {
        String nodeName = request.nodeName();
        List<Pod> onNode = new ArrayList<>();
        // each pod goes into the view at once, reduced to what the filters read; the page is dropped after it
        PlacementCluster.Builder view = PlacementCluster.builder(nodes.nodes().get());
        String next = null;
        do {
            PodList page = client.pods()
                    .inAnyNamespace()
                    .list(new ListOptionsBuilder()
                            .withLimit((long) PAGE)
                            .withContinue(next)
                            .build());
            for (Pod pod : page.getItems()) {
                String on = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
                if (on == null) {
                    continue; // not bound: takes no room (PlacementCluster)
                }
                if (nodeName.equals(on)) {
                    onNode.add(pod); // the drain plan reads the whole pod, as the drain does
                }
                view.pod(pod);
            }
            next = page.getMetadata() == null ? null : page.getMetadata().getContinue();
        } while (next != null && !next.isEmpty());
        List<Pod> evictions = drainStep.evictions(request, onNode, now);
        List<PersistentVolumeClaim> claims = new ArrayList<>();
        List<PersistentVolume> volumes = new ArrayList<>();
        Map<String, String> notRead = new LinkedHashMap<>();
        readVolumes(evictions, claims, volumes, notRead);
        Map<String, Map<String, String>> namespaceLabels = Map.of();
        String namespacesNotRead = null;
        if (view.needsNamespaceLabels(evictions)) {
            try {
                namespaceLabels = namespaceLabels();
            } catch (KubernetesClientException e) {
                namespacesNotRead = "list namespaces: " + ApiErrors.oneLine(e);
                namespaceLabels = null;
            }
        }
        PlacementCluster cluster = view.build(volumes, claims, namespaceLabels == null ? Map.of() : namespaceLabels);
        notRead.forEach((key, why) -> {
            int slash = key.indexOf('/');
            cluster.claimNotRead(key.substring(0, slash), key.substring(slash + 1), why);
        });
        if (namespacesNotRead != null) {
            cluster.namespacesNotRead(namespacesNotRead);
        }
        Set<String> cordoned = new TreeSet<>(nodes.alsoCordoned().get());
        cordoned.remove(nodeName);
        return new Made(
                PlacementForecast.of(cluster, List.of(new PlacementForecast.Drain(nodeName, evictions)), cordoned),
                evictions,
                namespaceLabels);
    }

    /**
     * Every namespace's labels, by name: one LIST (the scheduler's namespace lister holds the same; a cluster has
     * namespaces by the hundreds, not the pods' hundreds of thousands, so no pages).
     */
    private Map<String, Map<String, String>> namespaceLabels() {
        Map<String, Map<String, String>> out = new HashMap<>();
        for (Namespace ns : client.namespaces().list().getItems()) {
            Map<String, String> labels = ns.getMetadata().getLabels();
            out.put(ns.getMetadata().getName(), labels == null ? Map.of() : Map.copyOf(labels));
        }
        return out;
    }

    /**
     * The claims the pods to evict mount and the volumes bound to them, one GET each (each read once per forecast);
     * a claim whose read, or whose volume's read, fails or finds nothing goes to {@code notRead} ({@code
     * namespace/name -> why}) instead.
     */
    private void readVolumes(
            List<Pod> pods,
            List<PersistentVolumeClaim> claims,
            List<PersistentVolume> volumes,
            Map<String, String> notRead) {
        Set<String> seenClaims = new HashSet<>();
        Set<String> seenVolumes = new HashSet<>();
        for (Pod pod : pods) {
            String ns = pod.getMetadata().getNamespace();
            for (String name : claimNames(pod)) {
                String key = ns + "/" + name;
                if (!seenClaims.add(key)) {
                    continue;
                }
                PersistentVolumeClaim claim;
                try {
                    claim = client.persistentVolumeClaims()
                            .inNamespace(ns)
                            .withName(name)
                            .get();
                } catch (KubernetesClientException e) {
                    notRead.put(key, "get persistentvolumeclaim: " + ApiErrors.oneLine(e));
                    continue;
                }
                if (claim == null) {
                    // a StatefulSet creates a missing claim again from its template, unbound: not forecast
                    notRead.put(key, "get persistentvolumeclaim: HTTP 404 NotFound");
                    continue;
                }
                String pv = claim.getSpec() == null ? null : claim.getSpec().getVolumeName();
                if (pv != null && !pv.isEmpty() && seenVolumes.add(pv)) {
                    PersistentVolume volume;
                    try {
                        volume = client.persistentVolumes().withName(pv).get();
                    } catch (KubernetesClientException e) {
                        notRead.put(key, "get persistentvolume " + pv + ": " + ApiErrors.oneLine(e));
                        continue;
                    }
                    if (volume == null) {
                        notRead.put(key, "get persistentvolume " + pv + ": HTTP 404 NotFound");
                        continue;
                    }
                    volumes.add(volume);
                }
                claims.add(claim);
            }
        }
    }

    private static List<String> claimNames(Pod pod) {
        List<String> names = new ArrayList<>();
        if (pod.getSpec() != null && pod.getSpec().getVolumes() != null) {
            for (Volume v : pod.getSpec().getVolumes()) {
                if (v.getPersistentVolumeClaim() != null
                        && v.getPersistentVolumeClaim().getClaimName() != null) {
                    names.add(v.getPersistentVolumeClaim().getClaimName());
                }
            }
        }
        return names;
    }
}
