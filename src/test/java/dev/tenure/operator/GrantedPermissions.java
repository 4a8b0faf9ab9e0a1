package dev.tenure.operator;

import dev.tenure.testsupport.RecordedOperatorRequest;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * What the generated RBAC lets the operator's ServiceAccount do, one {@link Permission} per (verb, API group,
 * resource[/subresource]) and scope: cluster-wide (from ClusterRoles bound by ClusterRoleBindings, or a CSV's
 * {@code clusterPermissions}) or in one namespace (Roles bound by RoleBindings, or a CSV's {@code permissions},
 * which OLM grants in the operator's namespace).
 */
record GrantedPermissions(Set<Permission> permissions) {

    /**
     * One granted (verb, group, resource) in {@code namespace} ({@code namespace} empty = cluster-wide), and the
     * role that grants it.
     */
    record Permission(
            String verb, String apiGroup, String resource, String namespace, String role, Set<String> resourceNames) {

        Permission(String verb, String apiGroup, String resource, String namespace, String role) {
            this(verb, apiGroup, resource, namespace, role, Set.of());
        }

        boolean clusterWide() {
            return namespace.isEmpty();
        }

        @Override
        public String toString() {
            return verb + " " + (apiGroup.isEmpty() ? "\"\"" : apiGroup) + " " + resource
                    + (resourceNames.isEmpty() ? "" : " named " + String.join(",", resourceNames))
                    + (clusterWide() ? " cluster-wide" : " in namespace " + namespace) + ", from " + role;
        }
    }

    /**
     * Non-resource URLs every authenticated user may GET through the default {@code system:discovery} and
     * {@code system:public-info-viewer} ClusterRoles: the operator needs no grant of its own for these.
     */
    static final Pattern DEFAULT_NON_RESOURCE_URLS =
            Pattern.compile("/api(/.*)?|/apis(/.*)?|/version/?|/healthz|/livez|/readyz|/openapi(/.*)?");

    /** Grants of the ServiceAccount {@code namespace/name} in plain manifests (ClusterRoles, Roles, bindings). */
    static GrantedPermissions ofManifests(List<Map<String, Object>> documents, String namespace, String name) {
        Set<Permission> permissions = new LinkedHashSet<>();
        for (Map<String, Object> binding : documents) {
            String kind = String.valueOf(binding.get("kind"));
            if (!kind.equals("ClusterRoleBinding") && !kind.equals("RoleBinding")) {
                continue;
            }
            List<Map<String, Object>> subjects =
                    Objects.requireNonNullElse(ManifestAssembly.at(binding, "subjects"), List.of());
            boolean bindsOperator = subjects.stream()
                    .anyMatch(s -> "ServiceAccount".equals(s.get("kind"))
                            && name.equals(s.get("name"))
                            && namespace.equals(s.get("namespace")));
            if (!bindsOperator) {
                continue;
            }
            String roleKind = ManifestAssembly.at(binding, "roleRef", "kind");
            String roleName = ManifestAssembly.at(binding, "roleRef", "name");
            String bindingNamespace = kind.equals("RoleBinding")
                    ? Objects.requireNonNullElse(ManifestAssembly.at(binding, "metadata", "namespace"), namespace)
                    : "";
            Map<String, Object> role = documents.stream()
                    .filter(d -> roleKind.equals(d.get("kind"))
                            && roleName.equals(ManifestAssembly.at(d, "metadata", "name")))
                    .filter(d -> roleKind.equals("ClusterRole")
                            || bindingNamespace.equals(Objects.requireNonNullElse(
                                    ManifestAssembly.at(d, "metadata", "namespace"), namespace)))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError(kind + " " + ManifestAssembly.at(binding, "metadata", "name")
                            + " refers to " + roleKind + " " + roleName + ", which the manifests do not contain"));
            permissions.addAll(expand(
                    Objects.requireNonNullElse(ManifestAssembly.at(role, "rules"), List.of()),
                    bindingNamespace,
                    roleKind + " " + roleName));
        }
        return new GrantedPermissions(permissions);
    }

    /** Grants of the CSV's ServiceAccount {@code name}, with {@code permissions} granted in {@code namespace}. */
    static GrantedPermissions ofCsv(Map<String, Object> csv, String namespace, String name) {
        Set<Permission> permissions = new LinkedHashSet<>();
        for (String key : List.of("clusterPermissions", "permissions")) {
            List<Map<String, Object>> entries =
                    Objects.requireNonNullElse(ManifestAssembly.at(csv, "spec", "install", "spec", key), List.of());
            for (Map<String, Object> entry : entries) {
                if (name.equals(entry.get("serviceAccountName"))) {
                    permissions.addAll(expand(
                            Objects.requireNonNullElse(ManifestAssembly.at(entry, "rules"), List.of()),
                            key.equals("permissions") ? namespace : "",
                            "CSV " + key));
                }
            }
        }
        return new GrantedPermissions(permissions);
    }

    static List<Permission> expand(List<Map<String, Object>> rules, String namespace, String role) {
        List<Permission> out = new ArrayList<>();
        for (Map<String, Object> rule : rules) {
            if (rule.get("nonResourceURLs") != null) {
                // Not generated today; the check would have to learn them before trusting such a rule.
                throw new AssertionError("rule " + rule + " uses nonResourceURLs, which "
                        + GrantedPermissions.class.getSimpleName() + " does not model");
            }
            Set<String> names = strings(rule, "resourceNames").stream()
                    .map(String::valueOf)
                    .collect(java.util.stream.Collectors.toCollection(java.util.TreeSet::new));
            for (Object group : strings(rule, "apiGroups")) {
                for (Object resource : strings(rule, "resources")) {
                    for (Object verb : strings(rule, "verbs")) {
                        out.add(new Permission(
                                String.valueOf(verb),
                                String.valueOf(group),
                                String.valueOf(resource),
                                namespace,
                                role,
                                names));
                    }
                }
            }
        }
        return out;
    }

    private static List<Object> strings(Map<String, Object> rule, String key) {
        return Objects.requireNonNullElse(ManifestAssembly.at(rule, key), List.of());
    }

    /** True when a permission allows the request (wildcards deliberately not honoured: none may be granted). */
    boolean grants(RecordedOperatorRequest request) {
        if (!request.isResourceRequest()) {
            return request.verb().equals("get")
                    && DEFAULT_NON_RESOURCE_URLS
                            .matcher(request.nonResourcePath())
                            .matches();
        }
        return permissions.stream().anyMatch(p -> covers(p, request));
    }

    /** The request is one this permission was needed for: same verb, group, resource, and within its scope. */
    static boolean covers(Permission p, RecordedOperatorRequest request) {
        return p.verb().equals(request.verb())
                && p.apiGroup().equals(request.apiGroup())
                && p.resource().equals(request.resourceWithSubresource())
                && (p.clusterWide() || p.namespace().equals(request.namespace()))
                // resourceNames restrict requests on one named object; a list, watch or create names none.
                && (p.resourceNames().isEmpty() || p.resourceNames().contains(request.name()));
    }
}
