package dev.tenure.testsupport;

import io.fabric8.kubernetes.api.model.authentication.UserInfo;
import io.fabric8.kubernetes.api.model.authorization.v1.ResourceAttributes;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleRef;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Answers SubjectAccessReview questions from the RBAC objects a cluster holds, the way kube-apiserver's RBAC
 * authorizer does for them: a request is allowed when a ClusterRoleBinding (or, for a namespaced request, a
 * RoleBinding in its namespace) binds the user, one of their groups or their service account to a role with a
 * rule matching verb, API group, resource (with subresource) and, when the rule names some, the resource name.
 * The emulated cluster does not serve SubjectAccessReviews; tests that need answers install this behind the
 * operator's review port, seeding the roles and bindings they reason about. It serves SelfSubjectAccessReviews with
 * this authorizer, for the user a request is taken to come from ({@link RequestOrigin}).
 *
 * <p>Not modelled (tests must not rely on them): aggregated ClusterRoles ({@code aggregationRule}),
 * non-resource URLs, and the other authorizers of a real cluster (Node, webhook).
 */
public final class RbacAuthorizer {

    /** Where the RBAC objects are read: a client of the cluster, or the emulated cluster's own store. */
    private interface RbacObjects {
        List<ClusterRoleBinding> clusterRoleBindings();

        List<RoleBinding> roleBindings(String namespace);

        Optional<ClusterRole> clusterRole(String name);

        Optional<Role> role(String namespace, String name);
    }

    private final RbacObjects objects;

    public RbacAuthorizer(KubernetesClient client) {
        this.objects = new RbacObjects() {
            @Override
            public List<ClusterRoleBinding> clusterRoleBindings() {
                return client.rbac().clusterRoleBindings().list().getItems();
            }

            @Override
            public List<RoleBinding> roleBindings(String namespace) {
                return client.rbac()
                        .roleBindings()
                        .inNamespace(namespace)
                        .list()
                        .getItems();
            }

            @Override
            public Optional<ClusterRole> clusterRole(String name) {
                return Optional.ofNullable(
                        client.rbac().clusterRoles().withName(name).get());
            }

            @Override
            public Optional<Role> role(String namespace, String name) {
                return Optional.ofNullable(client.rbac()
                        .roles()
                        .inNamespace(namespace)
                        .withName(name)
                        .get());
            }
        };
    }

    /** Reads the emulated cluster's store directly (the emulator's own SelfSubjectAccessReviews). */
    RbacAuthorizer(ClusterStore store) {
        String rbac = "/apis/rbac.authorization.k8s.io/v1";
        this.objects = new RbacObjects() {
            @Override
            public List<ClusterRoleBinding> clusterRoleBindings() {
                return store.list(rbac + "/clusterrolebindings", ClusterRoleBinding.class);
            }

            @Override
            public List<RoleBinding> roleBindings(String namespace) {
                return store.list(rbac + "/namespaces/" + namespace + "/rolebindings", RoleBinding.class);
            }

            @Override
            public Optional<ClusterRole> clusterRole(String name) {
                return store.get(rbac + "/clusterroles/" + name, ClusterRole.class);
            }

            @Override
            public Optional<Role> role(String namespace, String name) {
                return store.get(rbac + "/namespaces/" + namespace + "/roles/" + name, Role.class);
            }
        };
    }

    public boolean allowed(UserInfo user, ResourceAttributes request) {
        String namespace = Objects.requireNonNullElse(request.getNamespace(), "");
        Stream<List<PolicyRule>> clusterWide = objects.clusterRoleBindings().stream()
                .filter(b -> binds(b.getSubjects(), user))
                .map(b -> rules(b.getRoleRef(), null));
        Stream<List<PolicyRule>> inNamespace = namespace.isEmpty()
                ? Stream.empty()
                : objects.roleBindings(namespace).stream()
                        .filter(b -> binds(b.getSubjects(), user))
                        .map(b -> rules(b.getRoleRef(), namespace));
        return Stream.concat(clusterWide, inNamespace).flatMap(List::stream).anyMatch(rule -> matches(rule, request));
    }

    private List<PolicyRule> rules(RoleRef ref, String namespace) {
        if ("ClusterRole".equals(ref.getKind())) {
            return objects.clusterRole(ref.getName())
                    .map(r -> Objects.requireNonNullElse(r.getRules(), List.<PolicyRule>of()))
                    .orElse(List.of());
        }
        return namespace == null
                ? List.of()
                : objects.role(namespace, ref.getName())
                        .map(r -> Objects.requireNonNullElse(r.getRules(), List.<PolicyRule>of()))
                        .orElse(List.of());
    }

    private static boolean binds(List<Subject> subjects, UserInfo user) {
        List<String> groups = Objects.requireNonNullElse(user.getGroups(), List.of());
        return Objects.requireNonNullElse(subjects, List.<Subject>of()).stream().anyMatch(s -> switch (s.getKind()) {
            case "User" -> s.getName().equals(user.getUsername());
            case "Group" -> groups.contains(s.getName());
            case "ServiceAccount" ->
                ("system:serviceaccount:" + s.getNamespace() + ":" + s.getName()).equals(user.getUsername());
            default -> false;
        });
    }

    static boolean matches(PolicyRule rule, ResourceAttributes request) {
        String resource =
                request.getSubresource() == null || request.getSubresource().isEmpty()
                        ? request.getResource()
                        : request.getResource() + "/" + request.getSubresource();
        List<String> names = Objects.requireNonNullElse(rule.getResourceNames(), List.of());
        return anyOrEqual(rule.getVerbs(), request.getVerb())
                && anyOrEqual(rule.getApiGroups(), Objects.requireNonNullElse(request.getGroup(), ""))
                && anyOrEqual(rule.getResources(), resource)
                && (names.isEmpty() || (request.getName() != null && names.contains(request.getName())));
    }

    private static boolean anyOrEqual(List<String> values, String wanted) {
        List<String> all = Objects.requireNonNullElse(values, List.of());
        return all.contains("*") || all.contains(wanted);
    }
}
