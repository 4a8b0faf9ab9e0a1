package dev.tenure.maintenance.annotation;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tenure.maintenance.api.NodeMaintenanceStatus;
import dev.tenure.maintenance.machine.MaintenanceState;
import dev.tenure.maintenance.machine.NodeMaintenanceStatuses;
import io.quarkus.runtime.annotations.RegisterForReflection;
import java.time.Instant;

/**
 * What Tenure keeps on the Node ({@link MaintenanceAnnotation#STATE}) for the maintenance it runs for the
 * annotation: the acquireTime of the lease it runs under (which request window it belongs to) and the
 * machine's state, in the NodeMaintenance status form (the same mapping, so both doors persist alike).
 *
 * @param acquireTime ISO instant, {@code null} when nothing is recorded
 */
// Read and written by a private ObjectMapper, not the CRD model: a native image needs it registered,
// or read() would fall back to NONE and the maintenance would restart on every reconcile.
@RegisterForReflection
@JsonInclude(JsonInclude.Include.NON_NULL)
public record RecordedState(String acquireTime, NodeMaintenanceStatus machine) {

    private static final ObjectMapper JSON =
            new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
    static final RecordedState NONE = new RecordedState(null, null);

    /** The recorded state; an absent or unreadable record is {@link #NONE} (start over: every step is idempotent). */
    static RecordedState read(String json) {
        if (json == null || json.isBlank()) {
            return NONE;
        }
        try {
            return JSON.readValue(json, RecordedState.class);
        } catch (JsonProcessingException e) {
            return NONE;
        }
    }

    static RecordedState of(Instant acquireTime, NodeMaintenanceStatus machine) {
        return new RecordedState(acquireTime.toString(), machine);
    }

    Instant acquiredAt() {
        return acquireTime == null ? null : Instant.parse(acquireTime);
    }

    /** The machine state for the lease taken at {@code leaseAcquireTime}; a record of another window starts afresh. */
    MaintenanceState stateFor(Instant leaseAcquireTime) {
        return leaseAcquireTime != null && leaseAcquireTime.equals(acquiredAt())
                ? NodeMaintenanceStatuses.toState(machine)
                : MaintenanceState.initial();
    }

    /** The recorded machine status when it belongs to that window, else {@code null}. */
    NodeMaintenanceStatus statusFor(Instant leaseAcquireTime) {
        return leaseAcquireTime != null && leaseAcquireTime.equals(acquiredAt()) ? machine : null;
    }

    String toJson() {
        try {
            return JSON.writeValueAsString(this);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
