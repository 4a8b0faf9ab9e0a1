package dev.tenure.election;

import java.util.Optional;
import java.util.function.Consumer;

/**
 * The election core's port to wherever Leases live. Implementations: the fabric8 adapter
 * ({@code dev.tenure.election.kube.KubeLeaseStore}) and an in-memory store for tests.
 *
 * <p>All methods may throw {@link LeaseStoreException}: {@link LeaseNotFound},
 * {@link LeaseConflict} or {@link LeaseStoreFailure}. Returned records carry the stored
 * resourceVersion.
 */
public interface LeaseStore {

    /** The current record; {@link LeaseNotFound} when the lease does not exist. */
    LeaseRecord get(LeaseKey key);

    /** Creates the lease; {@link LeaseConflict#alreadyExists()} when it exists. */
    LeaseRecord create(LeaseKey key, LeaseRecord record);

    /**
     * Replaces the lease if its resourceVersion still equals {@code record.resourceVersion()}
     * (optimistic concurrency); {@link LeaseConflict} otherwise, {@link LeaseNotFound} when gone.
     */
    LeaseRecord update(LeaseKey key, LeaseRecord record);

    /**
     * Watches one lease: {@code listener} receives the record after every change, and
     * {@code Optional.empty()} when the lease is deleted. Delivery is at-least-once and may
     * come from any thread; the listener must not block.
     */
    LeaseWatch watch(LeaseKey key, Consumer<Optional<LeaseRecord>> listener);

    /** An open watch. */
    interface LeaseWatch extends AutoCloseable {
        @Override
        void close();
    }

    /** The record, or empty when the lease does not exist. */
    default Optional<LeaseRecord> find(LeaseKey key) {
        try {
            return Optional.of(get(key));
        } catch (LeaseNotFound e) {
            return Optional.empty();
        }
    }
}
