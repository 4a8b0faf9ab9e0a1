package dev.tenure.maintenance.admission;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.maintenance.api.DrainSpec;
import dev.tenure.maintenance.api.NodeMaintenanceSpec;
import io.fabric8.kubernetes.api.model.authentication.UserInfo;
import io.fabric8.kubernetes.api.model.authentication.UserInfoBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.ResourceAttributes;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Issue 26: a NodeMaintenance is admitted only for a user who could cordon and drain the node by hand. */
class NodeMaintenanceAuthorizerTest {

    /** Rights as the review sees them: "verb resource[/sub] [name]". */
    static AccessReviews granting(Set<String> rights) {
        return (user, a) -> rights.contains(a.getVerb() + " " + a.getResource()
                        + (a.getSubresource() == null ? "" : "/" + a.getSubresource()))
                || rights.contains(a.getVerb() + " " + a.getResource() + " " + a.getName());
    }

    static final Set<String> EDIT = Set.of("create pods/eviction", "delete pods", "create nodemaintenances");
    static final Set<String> NODE_ADMIN = Set.of("patch nodes", "create pods/eviction", "delete pods");
    static final Set<String> CORDON_AND_EVICT = Set.of("patch nodes worker-1", "create pods/eviction");

    @ParameterizedTest(name = "{0}, disableEviction={1}: refused for lacking [{2}]")
    @CsvSource(delimiter = '|', nullValues = "-", textBlock = """
            edit             | false | patch nodes worker-1
            edit             | true  | patch nodes worker-1
            node-admin       | false | -
            node-admin       | true  | -
            cordon-and-evict | false | -
            cordon-and-evict | true  | delete pods (all namespaces)
            nobody           | false | patch nodes worker-1; create pods/eviction (all namespaces)
            """)
    void refusesWhoCouldNotCordonAndDrainTheNodeByHand(String who, boolean disableEviction, String missing) {
        Set<String> rights = switch (who) {
            case "edit" -> EDIT;
            case "node-admin" -> NODE_ADMIN;
            case "cordon-and-evict" -> CORDON_AND_EVICT;
            default -> Set.of();
        };
        NodeMaintenanceSpec spec = new NodeMaintenanceSpec("worker-1", "test");
        if (disableEviction) {
            DrainSpec drain = new DrainSpec();
            drain.setDisableEviction(true);
            spec.setDrain(drain);
        }
        List<String> refusals = new NodeMaintenanceAuthorizer(granting(rights)).refusals(user(who), spec);
        if (missing == null) {
            assertThat(refusals).isEmpty();
        } else {
            assertThat(refusals).singleElement().asString().startsWith("user " + who + " may not put node worker-1");
            for (String right : missing.split("; ")) {
                assertThat(refusals.get(0)).contains(right);
            }
        }
    }

    @ParameterizedTest
    @CsvSource({"true", "false"})
    void requiredRightsAreCordonEvictAndDeleteOnlyWithoutEviction(boolean disableEviction) {
        NodeMaintenanceSpec spec = new NodeMaintenanceSpec("worker-1", "test");
        DrainSpec drain = new DrainSpec();
        drain.setDisableEviction(disableEviction);
        spec.setDrain(drain);
        List<ResourceAttributes> asked = NodeMaintenanceAuthorizer.requiredRights(spec).stream()
                .map(NodeMaintenanceAuthorizer.Right::attributes)
                .toList();
        assertThat(asked)
                .extracting(a -> a.getVerb() + " " + a.getGroup() + "/" + a.getResource() + "/" + a.getSubresource()
                        + " " + a.getName() + " ns=" + a.getNamespace())
                .containsExactlyElementsOf(
                        disableEviction
                                ? List.of(
                                        "patch /nodes/null worker-1 ns=null",
                                        "create /pods/eviction null ns=null",
                                        "delete /pods/null null ns=null")
                                : List.of("patch /nodes/null worker-1 ns=null", "create /pods/eviction null ns=null"));
    }

    @org.junit.jupiter.api.Test
    void noUserOrAFailedReviewRefuses() {
        NodeMaintenanceSpec spec = new NodeMaintenanceSpec("worker-1", "test");
        assertThat(new NodeMaintenanceAuthorizer(granting(NODE_ADMIN)).refusals(null, spec))
                .singleElement()
                .asString()
                .contains("names no user");
        AccessReviews failing = (user, a) -> {
            throw new IllegalStateException("connection refused");
        };
        assertThat(new NodeMaintenanceAuthorizer(failing).refusals(user("ada"), spec))
                .singleElement()
                .asString()
                .contains("could not check whether ada may patch nodes worker-1")
                .contains("connection refused");
    }

    static UserInfo user(String name) {
        return new UserInfoBuilder()
                .withUsername(name)
                .withGroups("system:authenticated")
                .build();
    }
}
