package dev.tenure.maintenance.drain;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quarkus.runtime.annotations.RegisterForReflection;
import java.util.Objects;

/**
 * The record of one surge (issue 51 item 2), written on the workload as the annotation {@value #ANNOTATION} before
 * its replicas are raised, so a restarted operator or a new leader knows whose the added replicas are and how many:
 * the maintenance (its UID and name), the node, the replicas the owner had and the replicas added. Pure: the caller
 * writes and reads the annotation; {@link #afterCrash} and {@link #giveBack} say what the replicas found mean.
 *
 * <p>Exact by construction: the surge owns only the difference it made. Replicas found at {@code replicas + added}
 * are the surge's; replicas found anywhere else were changed by someone else (an HPA, a GitOps controller, a person)
 * and are left as they are, said once in an event.
 *
 * @param maintenanceUid the NodeMaintenance's UID (a recreated maintenance of the same name is another owner)
 * @param maintenance the NodeMaintenance's name, for people reading the annotation
 * @param node the node drained
 * @param replicas the workload's {@code spec.replicas} before the surge
 * @param added the replicas the surge adds (the workload's pods on the node, at least 1)
 */
// Kept beside its own ObjectMapper (JacksonReflectionTest): it reads and writes the tree model only, so a native image
// needs no reflection for it; registered all the same, so a later binding of the record itself cannot fail there.
@RegisterForReflection
public record SurgeRecord(String maintenanceUid, String maintenance, String node, int replicas, int added) {

    /** The workload annotation holding the record, as JSON. */
    public static final String ANNOTATION = "tenure.dev/surged-by";

    private static final ObjectMapper JSON = new ObjectMapper();

    public SurgeRecord {
        require(maintenanceUid, "maintenanceUid");
        require(maintenance, "maintenance");
        require(node, "node");
        if (replicas < 0) {
            throw new IllegalArgumentException(ANNOTATION + ".replicas: must be >= 0, was " + replicas);
        }
        if (added < 1) {
            throw new IllegalArgumentException(ANNOTATION + ".added: must be >= 1, was " + added);
        }
    }

    /** The replicas the surge sets: {@code replicas + added}. */
    public int target() {
        return replicas + added;
    }

    /** The annotation's value. */
    public String toJson() {
        ObjectNode o = JSON.createObjectNode();
        o.put("maintenanceUid", maintenanceUid);
        o.put("maintenance", maintenance);
        o.put("node", node);
        o.put("replicas", replicas);
        o.put("added", added);
        return o.toString();
    }

    /**
     * Reads an annotation's value.
     *
     * @throws IllegalArgumentException naming the annotation and the field when it is not a record
     */
    public static SurgeRecord parse(String value) {
        JsonNode o;
        try {
            o = JSON.readTree(Objects.requireNonNullElse(value, ""));
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(ANNOTATION + ": not JSON: " + e.getOriginalMessage(), e);
        }
        if (o == null || !o.isObject()) {
            throw new IllegalArgumentException(ANNOTATION + ": must be a JSON object, was " + value);
        }
        return new SurgeRecord(
                text(o, "maintenanceUid"),
                text(o, "maintenance"),
                text(o, "node"),
                number(o, "replicas"),
                number(o, "added"));
    }

    /** What to do with the scale-up of a recorded surge, given the workload's {@code spec.replicas} now. */
    public sealed interface ScaleUp {}

    /** The replicas are still the owner's: raise them to {@code to} (the record was written, the scale was not). */
    public record Raise(int to) implements ScaleUp {}

    /** The replicas are already the surge's. */
    public record Raised() implements ScaleUp {}

    /** The replicas are neither: someone changed them; the surge does not go on. */
    public record ChangedBySomeoneElse(String why) implements ScaleUp, GiveBack {}

    /** After the record is on the workload (also after a restart): where the scale-up stands. */
    public ScaleUp afterCrash(int replicasNow) {
        if (replicasNow == replicas) {
            return new Raise(target());
        }
        if (replicasNow == target()) {
            return new Raised();
        }
        return new ChangedBySomeoneElse(changed(replicasNow));
    }

    /** What to give back at the surge's end (done, undone or timed out), given {@code spec.replicas} now. */
    public sealed interface GiveBack {}

    /** The replicas are the surge's: set them back to {@code to}, the owner's. */
    public record Lower(int to) implements GiveBack {}

    /** The replicas are the owner's already (never raised, or given back before a restart): only the record goes. */
    public record NothingToGive() implements GiveBack {}

    /** The surge's end: lower what is still ours, else leave it (and say so). */
    public GiveBack giveBack(int replicasNow) {
        if (replicasNow == target()) {
            return new Lower(replicas);
        }
        if (replicasNow == replicas) {
            return new NothingToGive();
        }
        return new ChangedBySomeoneElse(changed(replicasNow));
    }

    /** What a maintenance that meets this record, another maintenance's, does with it. */
    public sealed interface NotOurs {}

    /** The record's maintenance exists: its surge is its own, left to it (its end gives back and removes the record). */
    public record OwnersSurge() implements NotOurs {}

    /**
     * The record's maintenance no longer exists and the replicas are the owner's count: its surge is not in flight
     * (never raised, or given back and only the record left), so the record is removed and the workload decided afresh.
     */
    public record Orphaned() implements NotOurs {}

    /**
     * The record's maintenance no longer exists and the replicas are not the owner's count (a surge raised and never
     * given back, or someone else's count): nothing is written, the record stays for a person, who is told how.
     */
    public record OrphanedSurge(String why) implements NotOurs {}

    /**
     * Another maintenance's record: whether its maintenance still exists decides, as Kubernetes' garbage collector
     * decides an ownerReference's (the owner read by name: absent, or present with another UID, is gone).
     *
     * @param uidFound the UID of the NodeMaintenance named {@link #maintenance} as read now; null when absent (404)
     * @param replicasNow the workload's {@code spec.replicas} in the same read as the record
     */
    public NotOurs notOurs(String uidFound, int replicasNow) {
        if (maintenanceUid.equals(uidFound)) {
            return new OwnersSurge();
        }
        if (replicasNow == replicas) {
            return new Orphaned();
        }
        return new OrphanedSurge(gone() + "; replicas are " + replicasNow + ", not the " + replicas
                + " it recorded as the owner's (" + target() + " while its surge was raised): its surge was raised and"
                + " never given back, or someone else set them; nothing is written to the workload: if they are the"
                + " surge's, scale it back to " + replicas + ", then remove the annotation " + ANNOTATION);
    }

    /** "the record names NodeMaintenance m1 (uid …), which no longer exists". */
    public String gone() {
        return "the record " + ANNOTATION + " names NodeMaintenance " + maintenance + " (uid " + maintenanceUid
                + "), which no longer exists";
    }

    private String changed(int replicasNow) {
        return "replicas are " + replicasNow + ", neither the " + replicas + " the owner had nor the " + target()
                + " the surge set: changed by someone else (an HPA, a GitOps controller, a person), left as they are";
    }

    private static void require(String s, String field) {
        if (s == null || s.isBlank()) {
            throw new IllegalArgumentException(ANNOTATION + "." + field + ": required");
        }
    }

    private static String text(JsonNode o, String field) {
        JsonNode v = o.get(field);
        if (v == null || !v.isTextual()) {
            throw new IllegalArgumentException(ANNOTATION + "." + field + ": must be a string");
        }
        return v.asText();
    }

    private static int number(JsonNode o, String field) {
        JsonNode v = o.get(field);
        if (v == null || !v.canConvertToInt() || !v.isIntegralNumber()) {
            throw new IllegalArgumentException(ANNOTATION + "." + field + ": must be an integer");
        }
        return v.asInt();
    }
}
