package dev.tenure.maintenance.api;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.Objects;

/**
 * One surge of this maintenance ({@code spec.drain.evacuation: Surge}): the workload, the replicas its owner had and
 * the replicas added, written before the scale so a restarted operator or a new leader finishes or undoes it. The
 * workload carries the same record in its annotation {@code tenure.dev/surged-by}.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public class SurgeStatus {

    @JsonPropertyDescription("Deployment, or ReplicaSet (one without a Deployment).")
    private String kind;

    private String namespace;

    private String name;

    @JsonPropertyDescription("The ReplicaSet whose pods on the node the surge moves.")
    private String replicaSet;

    @io.fabric8.generator.annotation.Min(0)
    @JsonPropertyDescription("spec.replicas before the surge: what is given back.")
    private Integer replicas;

    @io.fabric8.generator.annotation.Min(1)
    @JsonPropertyDescription("Replicas the surge adds (the workload's pods on the node).")
    private Integer added;

    @JsonPropertyDescription("True once spec.replicas was seen at replicas + added.")
    private Boolean raised;

    @JsonPropertyDescription(
            "Set when the surge stopped without giving back, or was never started (why): the replicas were changed"
                    + " by someone else and are left as they are, or the placement forecast says the surge's pods would"
                    + " fit nowhere (never raised, nothing written to the workload); the pods are evicted as with"
                    + " evacuation Evict.")
    private String left;

    @JsonPropertyDescription(
            "True while the surge's record (annotation tenure.dev/surged-by) is still on the workload after its"
                    + " replicas were settled (given back, or left as someone else set them): every try to remove it in"
                    + " a step conflicted (the workload being written) or failed for now. Removed at a later step from a"
                    + " fresh read, only while it is still this maintenance's; neither the drain nor the maintenance's"
                    + " end finishes before. The replicas are not looked at again.")
    private Boolean recordPending;

    @io.fabric8.generator.annotation.Min(1)
    @JsonPropertyDescription(
            "The workload's metadata.generation as the surge's record was written (the patch's answer; for a record"
                    + " found on the workload that status did not list yet, as read when taken up, never raised then)."
                    + " kube-apiserver"
                    + " moves it on every spec change (the scale subresource too) and, for a Deployment, on every"
                    + " annotation change; status writes never move it. While raised is not true and spec.replicas is"
                    + " the owner's, a generation other than this one means the workload was written since: the surge's"
                    + " raise then a put-back by someone else (the status saying raised was lost), or another change."
                    + " The surge is then left, never raised (again). Absent in a record written by a release before"
                    + " it: replicas at the owner's count are raised, as that release did.")
    private Long generation;

    public SurgeStatus() {}

    public SurgeStatus(
            String kind,
            String namespace,
            String name,
            String replicaSet,
            int replicas,
            int added,
            boolean raised,
            String left) {
        this.kind = kind;
        this.namespace = namespace;
        this.name = name;
        this.replicaSet = replicaSet;
        this.replicas = replicas;
        this.added = added;
        this.raised = raised;
        this.left = left;
    }

    /**
     * A copy: the machine moves a surge on by setting its fields, so the state it works on must not share objects with
     * the status it was read from (else the status written would compare equal to the one read).
     */
    public SurgeStatus copy() {
        SurgeStatus c = new SurgeStatus();
        c.kind = kind;
        c.namespace = namespace;
        c.name = name;
        c.replicaSet = replicaSet;
        c.replicas = replicas;
        c.added = added;
        c.raised = raised;
        c.left = left;
        c.recordPending = recordPending;
        c.generation = generation;
        return c;
    }

    public String getKind() {
        return kind;
    }

    public void setKind(String kind) {
        this.kind = kind;
    }

    public String getNamespace() {
        return namespace;
    }

    public void setNamespace(String namespace) {
        this.namespace = namespace;
    }

    public String getName() {
        return name;
    }

    public void setName(String name) {
        this.name = name;
    }

    public String getReplicaSet() {
        return replicaSet;
    }

    public void setReplicaSet(String replicaSet) {
        this.replicaSet = replicaSet;
    }

    public Integer getReplicas() {
        return replicas;
    }

    public void setReplicas(Integer replicas) {
        this.replicas = replicas;
    }

    public Integer getAdded() {
        return added;
    }

    public void setAdded(Integer added) {
        this.added = added;
    }

    public Boolean getRaised() {
        return raised;
    }

    public void setRaised(Boolean raised) {
        this.raised = raised;
    }

    public String getLeft() {
        return left;
    }

    public void setLeft(String left) {
        this.left = left;
    }

    public Boolean getRecordPending() {
        return recordPending;
    }

    public void setRecordPending(Boolean recordPending) {
        this.recordPending = recordPending;
    }

    public Long getGeneration() {
        return generation;
    }

    public void setGeneration(Long generation) {
        this.generation = generation;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SurgeStatus s
                && Objects.equals(kind, s.kind)
                && Objects.equals(namespace, s.namespace)
                && Objects.equals(name, s.name)
                && Objects.equals(replicaSet, s.replicaSet)
                && Objects.equals(replicas, s.replicas)
                && Objects.equals(added, s.added)
                && Objects.equals(raised, s.raised)
                && Objects.equals(left, s.left)
                && Objects.equals(recordPending, s.recordPending)
                && Objects.equals(generation, s.generation);
    }

    @Override
    public int hashCode() {
        return Objects.hash(
                kind, namespace, name, replicaSet, replicas, added, raised, left, recordPending, generation);
    }
}
