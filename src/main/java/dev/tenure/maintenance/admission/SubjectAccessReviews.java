package dev.tenure.maintenance.admission;

import io.fabric8.kubernetes.api.model.authentication.UserInfo;
import io.fabric8.kubernetes.api.model.authorization.v1.ResourceAttributes;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.Map;
import java.util.Objects;

/**
 * {@link AccessReviews} on the API server: one {@code authorization.k8s.io/v1} SubjectAccessReview per question,
 * for the user, groups, uid and extra the AdmissionReview named (what {@code kubectl auth can-i --as} asks).
 * Needs {@code create subjectaccessreviews}.
 */
@ApplicationScoped
public class SubjectAccessReviews implements AccessReviews {

    private final KubernetesClient client;

    @Inject
    public SubjectAccessReviews(KubernetesClient client) {
        this.client = client;
    }

    @Override
    public boolean allowed(UserInfo user, ResourceAttributes attributes) {
        SubjectAccessReview answer =
                client.authorization().v1().subjectAccessReview().create(review(user, attributes));
        return answer != null
                && answer.getStatus() != null
                && Boolean.TRUE.equals(answer.getStatus().getAllowed());
    }

    /** The review asking whether {@code user} may make the request {@code attributes} describe. */
    static SubjectAccessReview review(UserInfo user, ResourceAttributes attributes) {
        return new SubjectAccessReviewBuilder()
                .withNewSpec()
                .withUser(user.getUsername())
                .withUid(user.getUid())
                .withGroups(user.getGroups())
                .withExtra(Objects.requireNonNullElse(user.getExtra(), Map.of()))
                .withResourceAttributes(attributes)
                .endSpec()
                .build();
    }
}
