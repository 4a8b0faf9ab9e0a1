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
                && Objects.equals(left, s.left);
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, namespace, name, replicaSet, replicas, added, raised, left);
    }
}
