package dev.tenure.maintenance.api;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.Objects;

/** The per-node Lease as last seen, so `kubectl get nm -o yaml` shows who holds the node and until when. */
@JsonInclude(JsonInclude.Include.NON_NULL)
// A newer CRD (or a cluster that does not prune) may carry fields this version does not know: ignored, so
// one such object never stops the informer that reads every NodeMaintenance (issue 16).
@JsonIgnoreProperties(ignoreUnknown = true)
public class LeaseStatus {
    private String name;
    private String namespace;
    private String holderIdentity;
    private String acquireTime;
    private String renewTime;
    private String expireTime;

    public LeaseStatus() {}

    public LeaseStatus(
            String name,
            String namespace,
            String holderIdentity,
            String acquireTime,
            String renewTime,
            String expireTime) {
        this.name = name;
        this.namespace = namespace;
        this.holderIdentity = holderIdentity;
        this.acquireTime = acquireTime;
        this.renewTime = renewTime;
        this.expireTime = expireTime;
    }

    public String getName() {
        return name;
    }

    public void setName(String name) {
        this.name = name;
    }

    public String getNamespace() {
        return namespace;
    }

    public void setNamespace(String namespace) {
        this.namespace = namespace;
    }

    public String getHolderIdentity() {
        return holderIdentity;
    }

    public void setHolderIdentity(String holderIdentity) {
        this.holderIdentity = holderIdentity;
    }

    public String getAcquireTime() {
        return acquireTime;
    }

    public void setAcquireTime(String acquireTime) {
        this.acquireTime = acquireTime;
    }

    public String getRenewTime() {
        return renewTime;
    }

    public void setRenewTime(String renewTime) {
        this.renewTime = renewTime;
    }

    public String getExpireTime() {
        return expireTime;
    }

    public void setExpireTime(String expireTime) {
        this.expireTime = expireTime;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LeaseStatus l
                && Objects.equals(name, l.name)
                && Objects.equals(namespace, l.namespace)
                && Objects.equals(holderIdentity, l.holderIdentity)
                && Objects.equals(acquireTime, l.acquireTime)
                && Objects.equals(renewTime, l.renewTime)
                && Objects.equals(expireTime, l.expireTime);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, namespace, holderIdentity, acquireTime, renewTime, expireTime);
    }
}
