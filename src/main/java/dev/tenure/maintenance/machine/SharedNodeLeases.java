package dev.tenure.maintenance.machine;

import dev.tenure.election.AuthorityStatus;
import dev.tenure.election.LeaseHeldElsewhere;
import dev.tenure.election.LeaseKey;
import dev.tenure.election.LeaseRecord;
import dev.tenure.election.LeaseRules;
import dev.tenure.election.LeaseStore;
import dev.tenure.election.LeaseStoreFailure;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The node's Leases in the namespaces other controllers share for node maintenance and Tenure does not write
 * ({@link MaintenanceSettings#guardNamespaces()}, by default {@code medik8s-leases}: node-maintenance-operator, NHC,
 * SNR, and Tenure 0.1.0): read-only, before a maintenance first takes its own node lease, and waited for while another
 * controller validly holds one. So a NodeMaintenance that waited for a medik8s holder before an upgrade moved Tenure's
 * own node leases to its namespace still waits after it.
 *
 * <p>A Lease there held by this operator's family (its own holder, an earlier instance, or 0.1.0's bare {@code
 * tenure}) does not block: it stands for a maintenance of ours, which goes on under the node lease Tenure keeps now;
 * the old one expires by itself. A namespace the operator may not read (403) does not block either: the guard cannot
 * see a holder there, says so once ({@link MaintenanceEvents#SHARED_LEASE_UNREADABLE}) and the maintenance goes on, as
 * it would without the guard; a namespace or Lease that does not exist (404) is nobody's hold.
 */
final class SharedNodeLeases {

    /** What the shared node leases say about starting a maintenance now. */
    sealed interface Verdict {
        /** Nobody else holds the node in a shared namespace: go on. */
        record Clear() implements Verdict {}

        /** Another controller holds it until {@code held.expiresAt()}: wait. */
        record Held(LeaseHeldElsewhere held) implements Verdict {}

        /** Nothing held where it could be read, but these keys could not be read (403): go on, and say so. */
        record Unreadable(List<LeaseKey> keys, String message) implements Verdict {}
    }

    private final LeaseStore leases;
    private final MaintenanceSettings settings;

    SharedNodeLeases(LeaseStore leases, MaintenanceSettings settings) {
        this.leases = leases;
        this.settings = settings;
    }

    /** The node's lease in each guarded namespace other than the one Tenure keeps its own node leases in. */
    List<LeaseKey> keysOf(String nodeName) {
        return settings.guardNamespaces().stream()
                .filter(ns -> !ns.equals(settings.leaseNamespace()))
                .map(ns -> LeaseKey.of(ns, settings.leaseName(nodeName)))
                .toList();
    }

    /**
     * Reads the node's shared leases (gets only) and judges them at {@code now}. A failure other than 403 or 404
     * ({@link dev.tenure.election.LeaseStoreException}) goes to the caller, which retries as for its own lease.
     */
    Verdict check(String nodeName, Instant now) {
        List<LeaseKey> unreadable = new ArrayList<>();
        String firstRefusal = null;
        for (LeaseKey key : keysOf(nodeName)) {
            Optional<LeaseRecord> record;
            try {
                record = leases.find(key);
            } catch (LeaseStoreFailure e) {
                if (e.status() != 403) {
                    throw e;
                }
                unreadable.add(key);
                firstRefusal = firstRefusal == null ? e.getMessage() : firstRefusal;
                continue;
            }
            Optional<LeaseHeldElsewhere> held = record.flatMap(r -> judge(key, r, now, settings));
            if (held.isPresent()) {
                return new Verdict.Held(held.get());
            }
        }
        return unreadable.isEmpty()
                ? new Verdict.Clear()
                : new Verdict.Unreadable(List.copyOf(unreadable), firstRefusal);
    }

    /**
     * A shared lease blocks while it is valid (authority view, as {@link LeaseRules#claim} judges a node lease) and
     * held by someone outside this operator's holder family.
     */
    static Optional<LeaseHeldElsewhere> judge(
            LeaseKey key, LeaseRecord record, Instant now, MaintenanceSettings settings) {
        AuthorityStatus status = LeaseRules.authorityStatus(record, now, NodeLease.FUTURE_TOLERANCE);
        if (status instanceof AuthorityStatus.Valid valid && !settings.isOurs(valid.holder())) {
            return Optional.of(new LeaseHeldElsewhere(key, valid.holder(), valid.expiresAt(), record));
        }
        return Optional.empty();
    }
}
