package dev.tenure.rollout.api;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.Objects;

/** A health gate closed now (status.gates): which, whose slot it holds, since when, and what it waits on. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public class GateStatus {

    @JsonPropertyDescription("The gate: WorkloadsWhole (the workloads a done node's drain removed are not whole yet).")
    private String name;

    @JsonPropertyDescription("The node whose slot it holds; absent when it holds every start of the rollout.")
    private String node;

    @JsonPropertyDescription("When it was first seen closed (RFC 3339); spec.health.gateTimeout after it, the rollout"
            + " pauses (reason GateTimeout) until the gate opens.")
    private String since;

    @JsonPropertyDescription("What it waits on, e.g. ReplicaSet shop/web-5d8f: 2 of 3 available.")
    private String message;

    public GateStatus() {}

    public GateStatus(String name, String node, String since, String message) {
        this.name = name;
        this.node = node;
        this.since = since;
        this.message = message;
    }

    public String getName() {
        return name;
    }

    public void setName(String name) {
        this.name = name;
    }

    public String getNode() {
        return node;
    }

    public void setNode(String node) {
        this.node = node;
    }

    public String getSince() {
        return since;
    }

    public void setSince(String since) {
        this.since = since;
    }

    public String getMessage() {
        return message;
    }

    public void setMessage(String message) {
        this.message = message;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof GateStatus g
                && Objects.equals(name, g.name)
                && Objects.equals(node, g.node)
                && Objects.equals(since, g.since)
                && Objects.equals(message, g.message);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, node, since, message);
    }
}
