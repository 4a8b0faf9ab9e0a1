package dev.tenure.maintenance.admission;

import io.fabric8.kubernetes.api.model.authentication.UserInfo;

/**
 * The user the operator's own requests come from, {@code system:serviceaccount:<namespace>:<name>} (how
 * kube-apiserver names a service account in an AdmissionReview's userInfo). The webhook admits its writes unchecked:
 * the finalizer the operator adds and removes is an UPDATE of the NodeMaintenance, and a rule or a requester check
 * that refused it (a rule tightened by an upgrade, a SubjectAccessReview that failed) would leave the node's undo, or
 * the resource, stranded.
 */
public record OperatorServiceAccount(String namespace, String name) {

    public OperatorServiceAccount {
        if (namespace == null || namespace.isBlank() || name == null || name.isBlank()) {
            throw new IllegalArgumentException(
                    "the operator's service account needs a namespace and a name, got " + namespace + "/" + name);
        }
    }

    /** {@code system:serviceaccount:<namespace>:<name>}. */
    public String username() {
        return "system:serviceaccount:" + namespace + ":" + name;
    }

    /** Whether {@code user} is this service account. */
    public boolean is(UserInfo user) {
        return user != null && username().equals(user.getUsername());
    }
}
