package dev.tenure.testsupport;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Discovery documents ({@code /api}, {@code /api/v1}, {@code /apis}, {@code /apis/<group>[/<version>]}) for the
 * resources Tenure and kubectl use. The CRUD mock answers {@code GET /api} with a list of every object, so
 * kubectl ("the server doesn't have a resource type nodes") needs these.
 */
final class Discovery {
    private static final List<String> ALL_VERBS =
            List.of("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch");
    private static final List<String> STATUS_VERBS = List.of("get", "patch", "update");

    private record Resource(
            String name,
            String kind,
            boolean namespaced,
            List<String> verbs,
            String group,
            String version,
            List<String> shortNames) {}

    private final ObjectMapper json;
    /** "group/version" ("v1" for core) → resources, in the order served. */
    private final Map<String, List<Resource>> served = new LinkedHashMap<>();

    Discovery(ObjectMapper json, List<String> leaseCandidateVersions) {
        this.json = json;
        add(
                "v1",
                r("namespaces", "Namespace", false, "ns"),
                sub("namespaces/status", "Namespace", false),
                r("nodes", "Node", false, "no"),
                sub("nodes/status", "Node", false),
                r("pods", "Pod", true, "po"),
                sub("pods/status", "Pod", true),
                new Resource("pods/eviction", "Eviction", true, List.of("create"), "policy", "v1", List.of()),
                r("events", "Event", true, "ev"),
                r("configmaps", "ConfigMap", true, "cm"),
                r("secrets", "Secret", true),
                r("services", "Service", true, "svc"),
                r("serviceaccounts", "ServiceAccount", true, "sa"),
                r("endpoints", "Endpoints", true, "ep"),
                r("persistentvolumes", "PersistentVolume", false, "pv"),
                sub("persistentvolumes/status", "PersistentVolume", false),
                r("persistentvolumeclaims", "PersistentVolumeClaim", true, "pvc"),
                sub("persistentvolumeclaims/status", "PersistentVolumeClaim", true));
        add(
                "apps/v1",
                r("deployments", "Deployment", true, "deploy"),
                r("replicasets", "ReplicaSet", true, "rs"),
                r("statefulsets", "StatefulSet", true, "sts"),
                r("daemonsets", "DaemonSet", true, "ds"));
        add(
                "policy/v1",
                r("poddisruptionbudgets", "PodDisruptionBudget", true, "pdb"),
                sub("poddisruptionbudgets/status", "PodDisruptionBudget", true));
        add(
                "storage.k8s.io/v1",
                r("volumeattachments", "VolumeAttachment", false),
                sub("volumeattachments/status", "VolumeAttachment", false));
        add("coordination.k8s.io/v1", r("leases", "Lease", true));
        for (String v : leaseCandidateVersions) {
            add("coordination.k8s.io/" + v, r("leasecandidates", "LeaseCandidate", true));
        }
        add("events.k8s.io/v1", r("events", "Event", true, "ev"));
        add(
                "apiextensions.k8s.io/v1",
                r("customresourcedefinitions", "CustomResourceDefinition", false, "crd", "crds"),
                sub("customresourcedefinitions/status", "CustomResourceDefinition", false));
        add(
                "tenure.dev/v1alpha1",
                r("nodemaintenances", "NodeMaintenance", false, "tnm"),
                sub("nodemaintenances/status", "NodeMaintenance", false));
    }

    private static Resource r(String name, String kind, boolean namespaced, String... shortNames) {
        return new Resource(name, kind, namespaced, ALL_VERBS, null, null, List.of(shortNames));
    }

    private static Resource sub(String name, String kind, boolean namespaced) {
        return new Resource(name, kind, namespaced, STATUS_VERBS, null, null, List.of());
    }

    private void add(String groupVersion, Resource... resources) {
        served.put(groupVersion, List.of(resources));
    }

    /** The discovery document for a GET of {@code path}, if it is a discovery path. */
    Optional<String> document(String path) {
        String p = path.endsWith("/") && path.length() > 1 ? path.substring(0, path.length() - 1) : path;
        String[] seg = p.substring(1).split("/");
        if (p.equals("/api")) {
            ObjectNode n = json.createObjectNode().put("kind", "APIVersions");
            n.putArray("versions").add("v1");
            n.putArray("serverAddressByClientCIDRs")
                    .addObject()
                    .put("clientCIDR", "0.0.0.0/0")
                    .put("serverAddress", "");
            return Optional.of(n.toString());
        }
        if (p.equals("/api/v1")) {
            return Optional.of(resourceList("v1"));
        }
        if (p.equals("/apis")) {
            ObjectNode n = json.createObjectNode().put("kind", "APIGroupList").put("apiVersion", "v1");
            ArrayNode groups = n.putArray("groups");
            for (String group : groups()) {
                groups.add(group(group));
            }
            return Optional.of(n.toString());
        }
        if (seg.length == 2 && seg[0].equals("apis")) {
            return groups().contains(seg[1])
                    ? Optional.of(group(seg[1])
                            .put("kind", "APIGroup")
                            .put("apiVersion", "v1")
                            .toString())
                    : Optional.empty();
        }
        if (seg.length == 3 && seg[0].equals("apis")) {
            String gv = seg[1] + "/" + seg[2];
            return served.containsKey(gv) ? Optional.of(resourceList(gv)) : Optional.empty();
        }
        return Optional.empty();
    }

    /** The kind served for a resource of an API group ("" = core), e.g. ("", "pods") → Pod. */
    Optional<String> kind(String group, String resource) {
        for (var e : served.entrySet()) {
            String gv = e.getKey();
            String g = gv.contains("/") ? gv.substring(0, gv.indexOf('/')) : "";
            if (g.equals(group)) {
                for (Resource r : e.getValue()) {
                    if (r.name.equals(resource)) {
                        return Optional.of(r.kind);
                    }
                }
            }
        }
        return Optional.empty();
    }

    /** A top-level resource as served: what the OpenAPI documents describe. */
    record Served(String groupVersion, String name, String kind, boolean namespaced) {}

    /** Every top-level resource served (no subresources), by group version in the order served. */
    List<Served> resources() {
        List<Served> out = new ArrayList<>();
        served.forEach((gv, resources) -> resources.stream()
                .filter(r -> !r.name.contains("/"))
                .forEach(r -> out.add(new Served(gv, r.name, r.kind, r.namespaced))));
        return out;
    }

    /** True for paths that are discovery paths (served or not: an unserved group is a 404, never a CRUD list). */
    static boolean isDiscoveryPath(String path) {
        String p = path.endsWith("/") && path.length() > 1 ? path.substring(0, path.length() - 1) : path;
        String[] seg = p.substring(1).split("/");
        return p.equals("/api") || p.equals("/api/v1") || (seg[0].equals("apis") && seg.length <= 3);
    }

    private List<String> groups() {
        List<String> out = new ArrayList<>();
        for (String gv : served.keySet()) {
            int slash = gv.indexOf('/');
            if (slash > 0 && !out.contains(gv.substring(0, slash))) {
                out.add(gv.substring(0, slash));
            }
        }
        return out;
    }

    private ObjectNode group(String group) {
        ObjectNode g = json.createObjectNode().put("name", group);
        ArrayNode versions = g.putArray("versions");
        String preferred = null;
        for (String gv : served.keySet()) {
            if (gv.startsWith(group + "/")) {
                String v = gv.substring(group.length() + 1);
                versions.addObject().put("groupVersion", gv).put("version", v);
                if (preferred == null) {
                    preferred = gv;
                }
            }
        }
        g.putObject("preferredVersion")
                .put("groupVersion", preferred)
                .put("version", preferred.substring(group.length() + 1));
        return g;
    }

    private String resourceList(String groupVersion) {
        ObjectNode n = json.createObjectNode()
                .put("kind", "APIResourceList")
                .put("apiVersion", "v1")
                .put("groupVersion", groupVersion);
        ArrayNode list = n.putArray("resources");
        for (Resource r : served.get(groupVersion)) {
            ObjectNode o = list.addObject()
                    .put("name", r.name)
                    .put("singularName", "")
                    .put("namespaced", r.namespaced)
                    .put("kind", r.kind);
            if (r.group != null) {
                o.put("group", r.group).put("version", r.version);
            }
            ArrayNode verbs = o.putArray("verbs");
            r.verbs.forEach(verbs::add);
            if (!r.shortNames.isEmpty()) {
                ArrayNode sn = o.putArray("shortNames");
                r.shortNames.forEach(sn::add);
            }
        }
        return n.toString();
    }
}
