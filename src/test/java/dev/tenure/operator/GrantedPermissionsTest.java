package dev.tenure.operator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.testsupport.RecordedOperatorRequest;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** How RbacLeastPrivilegeCheck reads generated RBAC: bindings, scope, subresources, no wildcard honoured. */
class GrantedPermissionsTest {

    private static final String MANIFESTS = """
            apiVersion: rbac.authorization.k8s.io/v1
            kind: ClusterRole
            metadata: {name: maintenance}
            rules:
              - apiGroups: [""]
                resources: [nodes]
                verbs: [get, patch]
              - apiGroups: [coordination.k8s.io]
                resources: [leasecandidates]
                verbs: ["*"]
            ---
            apiVersion: rbac.authorization.k8s.io/v1
            kind: ClusterRoleBinding
            metadata: {name: maintenance}
            roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: maintenance}
            subjects: [{kind: ServiceAccount, name: tenure-operator, namespace: tenure-system}]
            ---
            apiVersion: rbac.authorization.k8s.io/v1
            kind: Role
            metadata: {name: election, namespace: tenure-system}
            rules:
              - apiGroups: [coordination.k8s.io]
                resources: [leases]
                verbs: [get, update]
            ---
            apiVersion: rbac.authorization.k8s.io/v1
            kind: ClusterRole
            metadata: {name: crd-reader}
            rules:
              - apiGroups: [apiextensions.k8s.io]
                resources: [customresourcedefinitions]
                resourceNames: [nodemaintenances.tenure.dev]
                verbs: [get, list]
            ---
            apiVersion: rbac.authorization.k8s.io/v1
            kind: ClusterRoleBinding
            metadata: {name: crd-reader}
            roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: crd-reader}
            subjects: [{kind: ServiceAccount, name: tenure-operator, namespace: tenure-system}]
            ---
            apiVersion: rbac.authorization.k8s.io/v1
            kind: RoleBinding
            metadata: {name: election, namespace: tenure-system}
            roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: election}
            subjects: [{kind: ServiceAccount, name: tenure-operator, namespace: tenure-system}]
            ---
            apiVersion: rbac.authorization.k8s.io/v1
            kind: ClusterRole
            metadata: {name: someone-else}
            rules:
              - apiGroups: [""]
                resources: [pods]
                verbs: [list]
            ---
            apiVersion: rbac.authorization.k8s.io/v1
            kind: ClusterRoleBinding
            metadata: {name: someone-else}
            roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: someone-else}
            subjects: [{kind: ServiceAccount, name: other, namespace: tenure-system}]
            """;

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', nullValues = "-", textBlock = """
            cluster role, cluster-scoped resource           | get    | ''                  | nodes           | ''     | ''            | -           | true
            a verb the rule does not list                   | delete | ''                  | nodes           | ''     | ''            | -           | false
            a subresource is not its resource               | patch  | ''                  | nodes           | status | ''            | -           | false
            role, in its namespace                          | update | coordination.k8s.io | leases          | ''     | tenure-system | -           | true
            role, in another namespace                      | update | coordination.k8s.io | leases          | ''     | kube-system   | -           | false
            role, across all namespaces                     | get    | coordination.k8s.io | leases          | ''     | ''            | -           | false
            a wildcard is not honoured                      | get    | coordination.k8s.io | leasecandidates | ''     | default       | -           | false
            a role bound to another ServiceAccount          | list   | ''                  | pods            | ''     | ''            | -           | false
            discovery, granted to every authenticated user  | get    | ''                  | ''              | ''     | ''            | /apis/tenure.dev/v1alpha1 | true
            /version, too                                   | get    | ''                  | ''              | ''     | ''            | /version    | true
            any other non-resource URL                      | get    | ''                  | ''              | ''     | ''            | /metrics    | false
            """)
    void grantsWhatTheBoundRolesSay(
            String name,
            String verb,
            String group,
            String resource,
            String subresource,
            String namespace,
            String path,
            boolean granted) {
        GrantedPermissions permissions = GrantedPermissions.ofManifests(
                ManifestAssembly.parseAll(MANIFESTS), "tenure-system", "tenure-operator");
        RecordedOperatorRequest request = new RecordedOperatorRequest(
                verb, group, resource, subresource, namespace, path == null ? "" : path, "SomeTest#case", "fabric8");

        assertThat(permissions.grants(request)).isEqualTo(granted);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            the named object                                | get  | nodemaintenances.tenure.dev | true
            another object of the same resource             | get  | leases.coordination.k8s.io  | false
            a request naming no object (list)               | list | ''                          | false
            """)
    void resourceNamesRestrictRequestsToTheNamedObjects(String name, String verb, String object, boolean granted) {
        GrantedPermissions permissions = GrantedPermissions.ofManifests(
                ManifestAssembly.parseAll(MANIFESTS), "tenure-system", "tenure-operator");
        RecordedOperatorRequest request = new RecordedOperatorRequest(
                verb,
                "apiextensions.k8s.io",
                "customresourcedefinitions",
                "",
                "",
                "",
                "SomeTest#case",
                "fabric8",
                object);

        assertThat(permissions.grants(request)).isEqualTo(granted);
    }
}
