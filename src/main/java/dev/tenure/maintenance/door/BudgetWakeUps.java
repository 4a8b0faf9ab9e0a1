package dev.tenure.maintenance.door;

import dev.tenure.kube.BudgetCache;
import dev.tenure.kube.SharedInformerCache;
import dev.tenure.maintenance.admission.NodeMaintenanceValidator;
import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.drain.BudgetRelease;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.javaoperatorsdk.operator.processing.event.Event;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.AbstractEventSource;
import io.javaoperatorsdk.operator.processing.event.source.IndexerResourceCache;
import java.util.Objects;
import java.util.Set;

/**
 * A drain a PodDisruptionBudget holds moves at the budget's pace, not the retry timer's (issue 51 item 8): when a
 * budget that refused evictions admits some again ({@link BudgetRelease#frees}: its replacement pods Ready, its
 * status caught up, or the budget deleted), the drain's memory frees the pods it refused ({@code
 * MaintenanceMachine#budgetFreed}) and the maintenances of those nodes are woken at once; their next drain step,
 * under the operator's fence as every step, sends the evictions. {@code spec.drain.evictionRetryDelay} stays the
 * fallback (a change the watch missed, a refusal that names no budget). An event source of JOSDK's over the operator's
 * one PodDisruptionBudget watch ({@link BudgetCache}), started and stopped with the controller, so only the leader
 * watches; a budget nobody waits on costs one comparison per change.
 */
final class BudgetWakeUps extends AbstractEventSource<PodDisruptionBudget, NodeMaintenance>
        implements ResourceEventHandler<PodDisruptionBudget> {

    /** The event source's name. */
    static final String NAME = "budget-changes";

    private final BudgetCache budgets;
    private final IndexerResourceCache<NodeMaintenance> primaries;
    /** The drain's memory: (budget "namespace/name", evictions it admits) → the nodes with a pod freed to go. */
    private final java.util.function.BiFunction<String, Integer, Set<String>> freed;

    private SharedInformerCache<PodDisruptionBudget>.Subscription subscription;

    BudgetWakeUps(
            BudgetCache budgets,
            IndexerResourceCache<NodeMaintenance> primaries,
            java.util.function.BiFunction<String, Integer, Set<String>> freed) {
        super(PodDisruptionBudget.class, NAME);
        this.budgets = Objects.requireNonNull(budgets, "budgets");
        this.primaries = Objects.requireNonNull(primaries, "primaries");
        this.freed = Objects.requireNonNull(freed, "freed");
    }

    @Override
    public synchronized void start() {
        if (subscription == null) {
            subscription = budgets.open(this);
        }
        super.start();
    }

    @Override
    public synchronized void stop() {
        super.stop();
        if (subscription != null) {
            subscription.close();
            subscription = null;
        }
    }

    @Override
    public Set<PodDisruptionBudget> getSecondaryResources(NodeMaintenance primary) {
        return Set.of(); // a wake-up only
    }

    @Override
    public void onAdd(PodDisruptionBudget pdb) {
        changed(null, pdb); // a re-list after a lost watch shows a budget as added
    }

    @Override
    public void onUpdate(PodDisruptionBudget before, PodDisruptionBudget after) {
        changed(before, after);
    }

    @Override
    public void onDelete(PodDisruptionBudget pdb, boolean deletedFinalStateUnknown) {
        wake(key(pdb), BudgetRelease.ALL);
    }

    private void changed(PodDisruptionBudget before, PodDisruptionBudget after) {
        int admits = BudgetRelease.frees(before, after);
        if (admits > 0) {
            wake(key(after), admits);
        }
    }

    private void wake(String budget, int admits) {
        if (!isRunning() || budget == null) {
            return;
        }
        Set<String> nodes = freed.apply(budget, admits);
        if (nodes.isEmpty()) {
            return;
        }
        primaries
                .list()
                .filter(nm -> nm.getMetadata().getDeletionTimestamp() == null)
                .filter(nm -> nodes.contains(NodeMaintenanceValidator.nodeOf(nm)))
                .forEach(nm -> getEventHandler().handleEvent(new Event(ResourceID.fromResource(nm))));
    }

    /** "namespace/name", as the drain names the budgets a 429 names; null for an object without them. */
    static String key(PodDisruptionBudget pdb) {
        if (pdb == null || pdb.getMetadata() == null) {
            return null;
        }
        String ns = pdb.getMetadata().getNamespace();
        String name = pdb.getMetadata().getName();
        return ns == null || name == null ? null : ns + "/" + name;
    }
}
