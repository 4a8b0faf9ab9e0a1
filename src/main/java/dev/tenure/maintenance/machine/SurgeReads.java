package dev.tenure.maintenance.machine;

import dev.tenure.maintenance.api.DrainOutlook;
import dev.tenure.maintenance.api.DrainPlanStatus.PlannedPod;
import dev.tenure.maintenance.drain.DrainPlan;
import dev.tenure.maintenance.drain.DrainPlan.PodVerdict;
import dev.tenure.maintenance.drain.PodFilters;
import dev.tenure.maintenance.drain.SurgePlanner;
import dev.tenure.placement.PlacementForecast;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The reads around {@link SurgePlanner} (issue 51): for each pod a preview shows waiting on its budget, its owner
 * chain and its namespace's HorizontalPodAutoscalers, read with the opt-in role's rights ({@link SurgeAccess}) and
 * only when it is held: one GET per ReplicaSet and per Deployment, one LIST of autoscalers per namespace.
 */
final class SurgeReads {

    private final KubernetesClient client;
    private final SurgeAccess access;

    SurgeReads(KubernetesClient client, SurgeAccess access) {
        this.client = client;
        this.access = access;
    }

    /**
     * The planner's decision for each previewed pod whose outlook is {@link DrainOutlook#WaitsForBudget}, by
     * "namespace/name".
     *
     * @param fits the placement forecast's verdicts by "namespace/name" (empty: none made)
     */
    Map<String, SurgePlanner.Decision> decide(
            DrainPlan plan,
            List<Pod> pods,
            List<PlannedPod> planned,
            Map<String, List<PodDisruptionBudget>> budgets,
            Map<String, PlacementForecast.Verdict> fits,
            Instant now) {
        Set<String> waiting = planned.stream()
                .filter(p -> p.getOutlook() == DrainOutlook.WaitsForBudget)
                .map(PlannedPod::getPod)
                .collect(Collectors.toSet());
        return decide(plan, pods, waiting, budgets, fits, now);
    }

    /**
     * The planner's decision for each pod of {@code waiting} ("namespace/name": pods the drain waits on for their
     * budget), by "namespace/name"; empty when none waits.
     */
    Map<String, SurgePlanner.Decision> decide(
            DrainPlan plan,
            List<Pod> pods,
            Set<String> waiting,
            Map<String, List<PodDisruptionBudget>> budgets,
            Map<String, PlacementForecast.Verdict> fits,
            Instant now) {
        if (waiting.isEmpty()) {
            return Map.of();
        }
        boolean role = access.missing(now).isEmpty();
        Set<String> drained = plan.verdicts().stream()
                .filter(PodVerdict::drained)
                .map(PodVerdict::key)
                .collect(Collectors.toSet());
        Map<String, Optional<ReplicaSet>> replicaSets = new HashMap<>();
        Map<String, Optional<Deployment>> deployments = new HashMap<>();
        Map<String, List<HorizontalPodAutoscaler>> autoscalers = new HashMap<>();
        Map<String, SurgePlanner.Decision> out = new LinkedHashMap<>();
        for (Pod pod : pods) {
            String ns = pod.getMetadata().getNamespace();
            String key = ns + "/" + pod.getMetadata().getName();
            if (!waiting.contains(key)) {
                continue;
            }
            OwnerReference controller = PodFilters.controllerOf(pod);
            Optional<ReplicaSet> rs = Optional.empty();
            Optional<Deployment> deployment = Optional.empty();
            List<HorizontalPodAutoscaler> hpas = List.of();
            if (role && controller != null && "ReplicaSet".equals(controller.getKind())) {
                rs = replicaSets.computeIfAbsent(
                        ns + "/" + controller.getName(),
                        k -> Optional.ofNullable(client.apps()
                                .replicaSets()
                                .inNamespace(ns)
                                .withName(controller.getName())
                                .get()));
                Optional<OwnerReference> owner = rs.flatMap(r -> r.getMetadata().getOwnerReferences().stream()
                        .filter(o -> Boolean.TRUE.equals(o.getController()) && "Deployment".equals(o.getKind()))
                        .findFirst());
                if (owner.isPresent()) {
                    deployment = deployments.computeIfAbsent(
                            ns + "/" + owner.get().getName(),
                            k -> Optional.ofNullable(client.apps()
                                    .deployments()
                                    .inNamespace(ns)
                                    .withName(owner.get().getName())
                                    .get()));
                }
                hpas = autoscalers.computeIfAbsent(
                        ns,
                        n -> client.autoscaling()
                                .v2()
                                .horizontalPodAutoscalers()
                                .inNamespace(n)
                                .list()
                                .getItems());
            }
            int onNode = controller == null
                    ? 1
                    : (int) Math.max(
                            1,
                            pods.stream()
                                    .filter(p ->
                                            drained.contains(p.getMetadata().getNamespace() + "/"
                                                    + p.getMetadata().getName()))
                                    .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
                                    .filter(p -> {
                                        OwnerReference c = PodFilters.controllerOf(p);
                                        return c != null && Objects.equals(c.getUid(), controller.getUid());
                                    })
                                    .count());
            out.put(
                    key,
                    SurgePlanner.decide(new SurgePlanner.Observed(
                            pod,
                            budgets.getOrDefault(ns, List.of()),
                            rs,
                            deployment,
                            hpas,
                            onNode,
                            fits.get(key),
                            role)));
        }
        return out;
    }
}
