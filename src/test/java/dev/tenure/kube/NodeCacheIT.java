package dev.tenure.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.testsupport.ApiRequest;
import dev.tenure.testsupport.EmulatedCluster;
import dev.tenure.testsupport.EndToEnd;
import io.fabric8.kubernetes.api.model.Node;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The shared Node cache starts through a refused first list when the API server says "try again" (a door chaos run
 * failed the operator's start on one injected 409), and still fails when it may not list nodes at all.
 */
@EndToEnd
class NodeCacheIT {

    EmulatedCluster cluster;

    @BeforeEach
    void start() {
        cluster = EmulatedCluster.start();
        cluster.seed().node("c1").role("worker").create();
    }

    @AfterEach
    void stop() {
        cluster.close();
    }

    static final Predicate<ApiRequest> LIST_NODES = ApiRequest.verb("list").and(ApiRequest.resource("nodes"));

    @Test
    void aFirstListAnsweredTryAgainIsRetried() {
        cluster.faults().failNext(2, LIST_NODES, 409);
        NodeCache cache = new NodeCache(cluster.client());
        try (SharedInformerCache<Node>.Subscription s = cache.open(NodeCache.NO_EVENTS)) {
            assertThat(s.informer().getStore().list())
                    .extracting(n -> n.getMetadata().getName())
                    .containsExactly("c1");
        }
    }

    @Test
    void aFirstListRefusedForGoodFailsTheStartAndLeavesNothingRunning() {
        cluster.faults().failNext(1, LIST_NODES, 403);
        NodeCache cache = new NodeCache(cluster.client());
        assertThatThrownBy(() -> cache.open(NodeCache.NO_EVENTS)).isInstanceOf(RuntimeException.class);
        assertThat(cache.informer()).isEmpty();
    }
}
