package dev.tenure.maintenance.admission;

import io.fabric8.kubernetes.api.model.authentication.UserInfo;
import io.fabric8.kubernetes.api.model.authorization.v1.ResourceAttributes;

/**
 * Asks the cluster's authorizer whether a user may make one request: a SubjectAccessReview on a real cluster
 * ({@link SubjectAccessReviews}). A port, so tests can answer from the RBAC objects they seed.
 */
public interface AccessReviews {

    /**
     * Whether {@code user} may make the request described by {@code attributes}.
     *
     * @throws RuntimeException when the review cannot be made; the caller refuses the request then
     */
    boolean allowed(UserInfo user, ResourceAttributes attributes);
}
