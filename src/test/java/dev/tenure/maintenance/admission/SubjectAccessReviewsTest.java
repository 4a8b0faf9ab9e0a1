package dev.tenure.maintenance.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.authentication.UserInfoBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.ResourceAttributesBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReview;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link SubjectAccessReviews} against fabric8's mock API server in expectation mode: the review it posts names
 * the requesting user (user, uid, groups, extra) and the request, and the server's {@code status.allowed} is the
 * answer. (The emulated cluster does not serve SubjectAccessReviews; the webhook's end-to-end test answers them
 * from RBAC objects with testsupport's RbacAuthorizer.)
 */
class SubjectAccessReviewsTest {

    static final String PATH = "/apis/authorization.k8s.io/v1/subjectaccessreviews";
    KubernetesMockServer server;
    KubernetesClient client;
    final List<SubjectAccessReview> posted = new ArrayList<>();

    @BeforeEach
    void start() {
        server = new KubernetesMockServer(false);
        server.init();
        client = server.createClient();
    }

    @AfterEach
    void stop() {
        client.close();
        server.destroy();
    }

    void answer(boolean allowed) {
        server.expect()
                .post()
                .withPath(PATH)
                .andReply(201, request -> {
                    SubjectAccessReview review = client.getKubernetesSerialization()
                            .unmarshal(request.getUtf8Body(), SubjectAccessReview.class);
                    posted.add(review);
                    review.setStatus(new io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewStatus(
                            allowed, false, null, allowed ? "RBAC: allowed" : ""));
                    return review;
                })
                .once();
    }

    @Test
    void asksForTheRequestingUserAndReturnsTheServersAnswer() {
        answer(true);
        answer(false);
        var user = new UserInfoBuilder()
                .withUsername("ada")
                .withUid("u-7")
                .withGroups("node-admins", "system:authenticated")
                .withExtra(Map.of("scopes", List.of("full")))
                .build();
        var patchNode = new ResourceAttributesBuilder()
                .withVerb("patch")
                .withGroup("")
                .withResource("nodes")
                .withName("worker-1")
                .build();
        SubjectAccessReviews reviews = new SubjectAccessReviews(client);

        assertThat(reviews.allowed(user, patchNode)).isTrue();
        assertThat(reviews.allowed(user, patchNode)).isFalse();

        assertThat(posted).hasSize(2);
        var spec = posted.get(0).getSpec();
        assertThat(spec.getUser()).isEqualTo("ada");
        assertThat(spec.getUid()).isEqualTo("u-7");
        assertThat(spec.getGroups()).containsExactly("node-admins", "system:authenticated");
        assertThat(spec.getExtra()).containsEntry("scopes", List.of("full"));
        assertThat(spec.getResourceAttributes()).isEqualTo(patchNode);
    }

    @Test
    void aReviewTheServerRefusesIsAnError() {
        server.expect().post().withPath(PATH).andReturn(403, "forbidden").once();
        SubjectAccessReviews reviews = new SubjectAccessReviews(client);
        assertThatThrownBy(() -> reviews.allowed(
                        new UserInfoBuilder().withUsername("ada").build(),
                        new ResourceAttributesBuilder()
                                .withVerb("patch")
                                .withResource("nodes")
                                .build()))
                .isInstanceOf(RuntimeException.class);
    }
}
