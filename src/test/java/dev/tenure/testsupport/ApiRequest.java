package dev.tenure.testsupport;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * One request seen by the emulated API server, described the way RBAC sees it: verb (get, list, watch,
 * create, update, patch, delete, deletecollection), API group, resource, subresource, namespace, name.
 * Non-resource requests (discovery, /version) have an empty resource and carry their {@code path}.
 */
public record ApiRequest(
        String verb,
        String apiGroup,
        String version,
        String resource,
        String subresource,
        String namespace,
        String name,
        String userAgent,
        String method,
        String path,
        Map<String, String> query,
        String term) {

    /** A request that names no operator term (no {@code Tenure-Term} header). */
    public ApiRequest(
            String verb,
            String apiGroup,
            String version,
            String resource,
            String subresource,
            String namespace,
            String name,
            String userAgent,
            String method,
            String path,
            Map<String, String> query) {
        this(verb, apiGroup, version, resource, subresource, namespace, name, userAgent, method, path, query, "");
    }

    /**
     * This request as sent with the operator's term header ({@code FencedWrites.TERM_HEADER}: {@code <identity>; term
     * <n>}); empty when the header was absent.
     */
    public ApiRequest withTerm(String header) {
        return new ApiRequest(
                verb,
                apiGroup,
                version,
                resource,
                subresource,
                namespace,
                name,
                userAgent,
                method,
                path,
                query,
                nullToEmpty(header));
    }

    /** POST, PUT, PATCH or DELETE: a request that changes something (or asks to). */
    public boolean isWrite() {
        return switch (method) {
            case "POST", "PUT", "PATCH", "DELETE" -> true;
            default -> false;
        };
    }

    /** Resources under a namespace path segment that are subresources of the Namespace itself. */
    private static final Set<String> NAMESPACE_SUBRESOURCES = Set.of("status", "finalize");

    public boolean isResourceRequest() {
        return !resource.isEmpty();
    }

    /** True when verb, resource and subresource (empty = none) are these. */
    public boolean is(String verb, String resource, String subresource) {
        return this.verb.equals(verb) && this.resource.equals(resource) && this.subresource.equals(subresource);
    }

    /** True when verb and resource are these and there is no subresource. */
    public boolean is(String verb, String resource) {
        return is(verb, resource, "");
    }

    /** "resource" or "resource/subresource", as written in a ClusterRole rule. */
    public String resourceWithSubresource() {
        return subresource.isEmpty() ? resource : resource + "/" + subresource;
    }

    // Predicates for the request log and the fault hook; combine with and()/or().
    public static Predicate<ApiRequest> verb(String verb) {
        return r -> r.verb.equals(verb);
    }

    public static Predicate<ApiRequest> resource(String resource) {
        return r -> r.resource.equals(resource) && r.subresource.isEmpty();
    }

    public static Predicate<ApiRequest> resource(String resource, String subresource) {
        return r -> r.resource.equals(resource) && r.subresource.equals(subresource);
    }

    public static Predicate<ApiRequest> named(String name) {
        return r -> r.name.equals(name);
    }

    public static Predicate<ApiRequest> inNamespace(String namespace) {
        return r -> r.namespace.equals(namespace);
    }

    public static Predicate<ApiRequest> any() {
        return r -> true;
    }

    /** Parses an HTTP method and request path (with query) into the RBAC view of it. */
    public static ApiRequest parse(String method, String rawPath, String userAgent) {
        int q = rawPath.indexOf('?');
        String path = q < 0 ? rawPath : rawPath.substring(0, q);
        Map<String, String> query = parseQuery(q < 0 ? "" : rawPath.substring(q + 1));
        List<String> seg = new ArrayList<>();
        for (String s : path.split("/")) {
            if (!s.isEmpty()) {
                seg.add(URLDecoder.decode(s, StandardCharsets.UTF_8));
            }
        }
        String group;
        String version;
        int i;
        if (seg.size() >= 2 && seg.get(0).equals("api")) {
            group = "";
            version = seg.get(1);
            i = 2;
        } else if (seg.size() >= 3 && seg.get(0).equals("apis")) {
            group = seg.get(1);
            version = seg.get(2);
            i = 3;
        } else {
            return new ApiRequest(
                    method.equals("GET") ? "get" : method.toLowerCase(Locale.ROOT),
                    "",
                    "",
                    "",
                    "",
                    "",
                    "",
                    nullToEmpty(userAgent),
                    method,
                    path,
                    query);
        }
        boolean legacyWatch = false;
        if (i < seg.size() && seg.get(i).equals("watch")) {
            legacyWatch = true;
            i++;
        }
        String namespace = "";
        String resource = "";
        String name = "";
        String subresource = "";
        List<String> rest = seg.subList(i, seg.size());
        if (rest.size() >= 3
                && rest.get(0).equals("namespaces")
                && !(rest.size() == 3 && NAMESPACE_SUBRESOURCES.contains(rest.get(2)))) {
            namespace = rest.get(1);
            rest = rest.subList(2, rest.size());
        }
        if (!rest.isEmpty()) {
            resource = rest.get(0);
        }
        if (rest.size() >= 2) {
            name = rest.get(1);
        }
        if (rest.size() >= 3) {
            subresource = rest.get(2);
        }
        if (resource.isEmpty()) { // /apis/<group>/<version>: discovery
            return new ApiRequest(
                    method.equals("GET") ? "get" : method.toLowerCase(Locale.ROOT),
                    "",
                    "",
                    "",
                    "",
                    "",
                    "",
                    nullToEmpty(userAgent),
                    method,
                    path,
                    query);
        }
        if (resource.equals("namespaces") && !name.isEmpty()) {
            namespace = name;
        }
        String verb = switch (method) {
            case "GET" -> {
                boolean watch = legacyWatch || "true".equals(query.get("watch")) || "1".equals(query.get("watch"));
                yield watch ? "watch" : name.isEmpty() ? "list" : "get";
            }
            case "POST" -> "create";
            case "PUT" -> "update";
            case "PATCH" -> "patch";
            case "DELETE" -> name.isEmpty() ? "deletecollection" : "delete";
            default -> method.toLowerCase(Locale.ROOT);
        };
        return new ApiRequest(
                verb,
                group,
                version,
                resource,
                subresource,
                namespace,
                name,
                nullToEmpty(userAgent),
                method,
                path,
                query);
    }

    static Map<String, String> parseQuery(String query) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String pair : query.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            String k = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
            String v = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
            out.put(k, v);
        }
        return out;
    }

    private static String nullToEmpty(String s) {
        return s == null ? "" : s;
    }

    @Override
    public String toString() {
        String where = namespace.isEmpty() ? "" : namespace + "/";
        return isResourceRequest()
                ? verb + " " + (apiGroup.isEmpty() ? "" : apiGroup + "/") + resourceWithSubresource() + " " + where
                        + name
                : method + " " + path;
    }
}
