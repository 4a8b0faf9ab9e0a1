package dev.tenure.maintenance.machine;

import io.fabric8.kubernetes.api.model.authorization.v1.ResourceAttributesBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReviewBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Whether the operator holds the opt-in surge role ({@code tenure-operator-surge}, issue 51): one
 * SelfSubjectAccessReview per right the surge uses, cluster-wide, asked again at most every {@link #RECHECK}. Every
 * authenticated account may create a SelfSubjectAccessReview (the {@code system:basic-user} ClusterRole), so the check
 * needs no right of its own. A review that cannot be made counts as not granted: the drain goes on as {@code Evict},
 * never fails on it.
 */
final class SurgeAccess {

    /** How long an answer is kept: an admin who binds the role sees surges within this. */
    static final Duration RECHECK = Duration.ofSeconds(60);

    /** One right the surge uses: (API group, resource, subresource, verb), as the opt-in ClusterRole grants it. */
    record Right(String group, String resource, String subresource, String verb) {
        String shown() {
            return verb + " " + group + "/" + resource + (subresource.isEmpty() ? "" : "/" + subresource);
        }
    }

    /** The rights the surge's reads and writes need, exactly as {@code tenure-operator-surge} grants them. */
    static final List<Right> RIGHTS = List.of(
            new Right("apps", "deployments", "", "get"),
            new Right("apps", "replicasets", "", "get"),
            new Right("autoscaling", "horizontalpodautoscalers", "", "list"),
            // the act: the record on the workload (a merge patch), and the scale itself (a PUT of the Scale)
            new Right("apps", "deployments", "", "patch"),
            new Right("apps", "replicasets", "", "patch"),
            new Right("apps", "deployments", "scale", "update"),
            new Right("apps", "replicasets", "scale", "update"));

    private final KubernetesClient client;
    private volatile Answer last;

    private record Answer(Instant at, Optional<String> missing) {}

    SurgeAccess(KubernetesClient client) {
        this.client = client;
    }

    /** Empty when every right is granted; else the first right missing (or why the review could not be made). */
    Optional<String> missing(Instant now) {
        Answer a = last;
        if (a != null && now.isBefore(a.at().plus(RECHECK)) && !now.isBefore(a.at())) {
            return a.missing();
        }
        Optional<String> missing = ask();
        last = new Answer(now, missing);
        return missing;
    }

    private Optional<String> ask() {
        for (Right r : RIGHTS) {
            SelfSubjectAccessReview review = new SelfSubjectAccessReviewBuilder()
                    .withNewSpec()
                    .withResourceAttributes(new ResourceAttributesBuilder()
                            .withGroup(r.group())
                            .withResource(r.resource())
                            .withSubresource(r.subresource())
                            .withVerb(r.verb())
                            .build())
                    .endSpec()
                    .build();
            try {
                SelfSubjectAccessReview answer =
                        client.authorization().v1().selfSubjectAccessReview().create(review);
                if (answer == null
                        || answer.getStatus() == null
                        || !Boolean.TRUE.equals(answer.getStatus().getAllowed())) {
                    return Optional.of(r.shown() + " not granted");
                }
            } catch (KubernetesClientException e) {
                return Optional.of("SelfSubjectAccessReview failed: " + e.getMessage());
            }
        }
        return Optional.empty();
    }
}
