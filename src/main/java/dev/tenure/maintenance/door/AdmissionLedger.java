package dev.tenure.maintenance.door;

import dev.tenure.maintenance.admission.NodeMaintenanceValidator;
import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.NodeMaintenanceStatus;
import dev.tenure.maintenance.api.Phase;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The admissions this reconciler made that its caches may not show yet, so that no two reconciles give out one slot.
 *
 * <p>A request the limits judge (a cap, a topology domain, the control-plane budget) is judged from the informers'
 * caches: which maintenances are started, which wait ahead of it. An admission shows in them only once its first
 * step has run and its status write has come back through the watch, seconds later on a busy API server. Until then a
 * second request, ahead of it in the queue order ({@code spec.priority}), saw a free slot where there was none: the
 * door chaos suite put 3 nodes into maintenance under a cap of 2. Decisions that may admit are therefore taken one at
 * a time under this ledger's lock ({@link #deciding}), and each admission is remembered until a cache shows it started
 * ({@link #overlay}): every later decision counts it. The memory is this operator instance's; a new leader starts from
 * fresh caches, which show every admission its predecessor wrote.
 */
final class AdmissionLedger {

    /** Admitted, by name: a copy of the NodeMaintenance as it was decided, its status saying where it was admitted. */
    private final Map<String, NodeMaintenance> admitted = new LinkedHashMap<>();

    /** The lock one decision that may admit is taken under: observe, decide and {@link #decided} together. */
    Object deciding() {
        return this;
    }

    /**
     * What {@code name}'s decision came to: admitted to {@code nodeName} (remembered until a cache shows it), or not
     * (an earlier admission of it is forgotten: this decision supersedes it). Call under {@link #deciding}.
     */
    synchronized void decided(NodeMaintenance nm, boolean admittedNow, String nodeName) {
        String name = nm.getMetadata().getName();
        if (!admittedNow || nodeName == null) {
            admitted.remove(name);
            return;
        }
        NodeMaintenance copy = new NodeMaintenance();
        copy.setMetadata(new ObjectMeta());
        copy.getMetadata().setName(name);
        copy.getMetadata().setCreationTimestamp(nm.getMetadata().getCreationTimestamp());
        copy.getMetadata().setUid(nm.getMetadata().getUid());
        copy.setSpec(nm.getSpec());
        NodeMaintenanceStatus status = new NodeMaintenanceStatus();
        // Pending and pinned to its node: how a request admitted whose first step has not been written yet stands
        // (NodeMaintenanceValidator.started)
        status.setPhase(Phase.Pending);
        status.setNodeName(nodeName);
        copy.setStatus(status);
        admitted.put(name, copy);
    }

    /** {@code name} is gone (deleted, its cleanup done): nothing of it is remembered. */
    synchronized void forget(String name) {
        admitted.remove(name);
    }

    /**
     * {@code cached} (every NodeMaintenance as the caches have it) with this reconciler's admissions in: one a cache
     * shows started is forgotten (the caches have caught up); one shown not started, or not shown at all, is counted as
     * started on the node it was admitted to. {@code self} is left as the caches have it.
     */
    synchronized List<NodeMaintenance> overlay(Collection<NodeMaintenance> cached, String self) {
        Map<String, NodeMaintenance> byName = new LinkedHashMap<>();
        cached.forEach(nm -> byName.put(nm.getMetadata().getName(), nm));
        admitted.entrySet().removeIf(e -> {
            NodeMaintenance seen = byName.get(e.getKey());
            return seen != null && NodeMaintenanceValidator.started(seen);
        });
        admitted.forEach((name, copy) -> {
            NodeMaintenance seen = byName.get(name);
            if (!name.equals(self) && (seen == null || seen.getMetadata().getDeletionTimestamp() == null)) {
                byName.put(name, copy);
            }
        });
        return new ArrayList<>(byName.values());
    }

    /** How many admissions are remembered (tests). */
    synchronized int size() {
        return admitted.size();
    }
}
