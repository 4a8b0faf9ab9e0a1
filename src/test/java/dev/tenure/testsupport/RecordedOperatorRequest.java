package dev.tenure.testsupport;

import java.util.List;

/**
 * One distinct request production code made to an emulated cluster, as RBAC sees it, and the test that was
 * running when it arrived. Written one per line (tab-separated) by {@link OperatorRequestRecorder}, read back by
 * the RBAC least-privilege check after the whole suite.
 *
 * @param nonResourcePath set (and resource empty) for discovery, {@code /version} and the like
 * @param name the object's name for a request on one object (get, update, patch, delete, create of a
 *     subresource), empty for list, watch, create and non-resource requests: what a rule's
 *     {@code resourceNames} restricts
 * @param test the test running on the lane that started the cluster ({@code Class#method}, or the class while its
 *     setup runs; {@link RunningTestListener}); a request that arrives after its test ended (a reconcile still in
 *     flight) is charged to whichever test runs on that lane then
 */
public record RecordedOperatorRequest(
        String verb,
        String apiGroup,
        String resource,
        String subresource,
        String namespace,
        String nonResourcePath,
        String test,
        String userAgent,
        String name) {

    /** A request on no single object (list, watch, create, non-resource). */
    public RecordedOperatorRequest(
            String verb,
            String apiGroup,
            String resource,
            String subresource,
            String namespace,
            String nonResourcePath,
            String test,
            String userAgent) {
        this(verb, apiGroup, resource, subresource, namespace, nonResourcePath, test, userAgent, "");
    }

    static RecordedOperatorRequest of(ApiRequest request, String test) {
        return new RecordedOperatorRequest(
                request.verb(),
                request.apiGroup(),
                request.resource(),
                request.subresource(),
                request.namespace(),
                request.isResourceRequest() ? "" : request.path(),
                test,
                request.userAgent(),
                request.name() == null ? "" : request.name());
    }

    public boolean isResourceRequest() {
        return !resource.isEmpty();
    }

    /** "resource" or "resource/subresource", as written in a (Cluster)Role rule. */
    public String resourceWithSubresource() {
        return subresource.isEmpty() ? resource : resource + "/" + subresource;
    }

    public String toLine() {
        return String.join(
                "\t",
                verb,
                apiGroup,
                resource,
                subresource,
                namespace,
                nonResourcePath,
                test,
                userAgent.replace('\t', ' '),
                name);
    }

    public static RecordedOperatorRequest parse(String line) {
        List<String> f = List.of(line.split("\t", -1));
        if (f.size() != 9) {
            throw new IllegalArgumentException("expected 9 tab-separated fields, got " + f.size() + ": " + line);
        }
        return new RecordedOperatorRequest(
                f.get(0), f.get(1), f.get(2), f.get(3), f.get(4), f.get(5), f.get(6), f.get(7), f.get(8));
    }

    @Override
    public String toString() {
        String what = isResourceRequest()
                ? verb + " " + (apiGroup.isEmpty() ? "\"\"" : apiGroup) + " " + resourceWithSubresource()
                        + (name.isEmpty() ? "" : " " + name)
                        + (namespace.isEmpty() ? "" : " in " + namespace)
                : verb + " " + nonResourcePath;
        return what + " (by " + test + ")";
    }
}
