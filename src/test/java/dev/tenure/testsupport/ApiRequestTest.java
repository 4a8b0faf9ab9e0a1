package dev.tenure.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The RBAC view of requests: the RBAC test turns these into ClusterRole rules, so the verbs must be exact. */
class ApiRequestTest {

    @ParameterizedTest(name = "{0} {1} → {2} {3}/{4} {5} {6}/{7}")
    @CsvSource(delimiter = '|', nullValues = "-", textBlock = """
      GET    | /api/v1/namespaces/a/pods/p                                   | get              | ''                 | pods                 | ''       | a  | p
      GET    | /api/v1/namespaces/a/pods                                     | list             | ''                 | pods                 | ''       | a  | ''
      GET    | /api/v1/pods?fieldSelector=spec.nodeName%3Dw1                 | list             | ''                 | pods                 | ''       | '' | ''
      GET    | /api/v1/namespaces/a/pods?watch=true&resourceVersion=5        | watch            | ''                 | pods                 | ''       | a  | ''
      GET    | /api/v1/watch/namespaces/a/pods                               | watch            | ''                 | pods                 | ''       | a  | ''
      POST   | /api/v1/namespaces/a/pods/p/eviction                          | create           | ''                 | pods                 | eviction | a  | p
      POST   | /api/v1/namespaces/a/events                                   | create           | ''                 | events               | ''       | a  | ''
      PUT    | /apis/coordination.k8s.io/v1/namespaces/a/leases/l            | update           | coordination.k8s.io| leases               | ''       | a  | l
      PATCH  | /api/v1/nodes/w1                                              | patch            | ''                 | nodes                | ''       | '' | w1
      PATCH  | /api/v1/nodes/w1/status                                       | patch            | ''                 | nodes                | status   | '' | w1
      PUT    | /apis/tenure.dev/v1alpha1/nodemaintenances/m/status           | update           | tenure.dev         | nodemaintenances     | status   | '' | m
      DELETE | /api/v1/namespaces/a/pods/p                                   | delete           | ''                 | pods                 | ''       | a  | p
      DELETE | /apis/coordination.k8s.io/v1beta1/namespaces/a/leasecandidates | deletecollection | coordination.k8s.io| leasecandidates      | ''       | a  | ''
      GET    | /api/v1/namespaces/kube-system                                | get              | ''                 | namespaces           | ''       | kube-system | kube-system
      GET    | /api/v1/namespaces                                            | list             | ''                 | namespaces           | ''       | '' | ''
      PUT    | /api/v1/namespaces/a/finalize                                 | update           | ''                 | namespaces           | finalize | a  | a
      GET    | /apis/apps/v1/namespaces/a/daemonsets/ds                      | get              | apps               | daemonsets           | ''       | a  | ds
      GET    | /apis/apiextensions.k8s.io/v1/customresourcedefinitions       | list             | apiextensions.k8s.io | customresourcedefinitions | '' | '' | ''
      """)
    void mapsRequestsToRbacVerbs(
            String method,
            String path,
            String verb,
            String group,
            String resource,
            String subresource,
            String namespace,
            String name) {
        ApiRequest r = ApiRequest.parse(method, path, "kubectl/v1.32");

        assertThat(r.verb()).isEqualTo(verb);
        assertThat(r.apiGroup()).isEqualTo(group);
        assertThat(r.resource()).isEqualTo(resource);
        assertThat(r.subresource()).isEqualTo(subresource);
        assertThat(r.namespace()).isEqualTo(namespace);
        assertThat(r.name()).isEqualTo(name);
        assertThat(r.userAgent()).isEqualTo("kubectl/v1.32");
    }

    @ParameterizedTest
    @CsvSource({"/api", "/apis", "/apis/apps/v1", "/version", "/openapi/v2"})
    void discoveryAndVersionAreNonResourceRequests(String path) {
        ApiRequest r = ApiRequest.parse("GET", path, null);
        assertThat(r.isResourceRequest()).isFalse();
        assertThat(r.verb()).isEqualTo("get");
        assertThat(r.path()).isEqualTo(path);
    }

    /** Who the RBAC check charges a request to: only the harness, kubectl and workloads are not the operator. */
    @ParameterizedTest(name = "{0} → {1}")
    @CsvSource({
        "emulated-cluster-test-client, HARNESS",
        "kubectl/v1.32.0 (linux/amd64) kubernetes/abc, KUBECTL",
        "emulated-cluster-workload, WORKLOAD",
        "fabric8-kubernetes-client/7.3.1, OPERATOR",
        "tenure-operator-under-test, OPERATOR",
        "chaos-operator, OPERATOR",
        "'', OPERATOR"
    })
    void requestOriginFollowsTheUserAgent(String userAgent, RequestOrigin origin) {
        assertThat(RequestOrigin.of(ApiRequest.parse("GET", "/api/v1/nodes", userAgent)))
                .isEqualTo(origin);
    }
}
