package dev.tenure.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.maintenance.admission.MaintenanceLimits;
import dev.tenure.maintenance.admission.MaintenanceLimits.NodeCount;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The queue limits as the operator reads them at start-up ({@link TenureConfig}, the mapping Quarkus validates before
 * anything runs): the old number still works, a percentage and the per-topology cap are read, and a bad value stops
 * the start with a message naming the key.
 */
class NodeCountSettingTest {

    static SmallRyeConfig config(Map<String, String> values) {
        return new SmallRyeConfigBuilder()
                .withMapping(TenureConfig.class)
                // Quarkus' own duration form ("30s"), which the defaults use
                .withConverter(java.time.Duration.class, 200, new io.quarkus.runtime.configuration.DurationConverter())
                .withSources(new PropertiesConfigSource(values, "test", 500))
                .build();
    }

    static MaintenanceLimits limits(Map<String, String> values) {
        return new MaintenanceBeans().limits(config(values).getConfigMapping(TenureConfig.class));
    }

    @Test
    void theOldNumberStillMeansANumber() {
        MaintenanceLimits limits = limits(Map.of("tenure.maintenance.max-nodes-in-maintenance", "2"));
        assertThat(limits.maxNodesInMaintenance()).contains(NodeCount.nodes(2));
        assertThat(limits.perTopology()).isEmpty();
    }

    @Test
    void readsAPercentageAndAPerTopologyCapWithItsKey() {
        MaintenanceLimits limits = limits(Map.of(
                "tenure.maintenance.max-nodes-in-maintenance", "25%",
                "tenure.maintenance.max-nodes-in-maintenance-per-topology", "1"));
        assertThat(limits.maxNodesInMaintenance()).contains(new NodeCount(25, true));
        assertThat(limits.perTopology())
                .contains(new MaintenanceLimits.TopologyLimit("topology.kubernetes.io/zone", NodeCount.nodes(1)));
        assertThat(limits(Map.of(
                                "tenure.maintenance.max-nodes-in-maintenance-per-topology", "50%",
                                "tenure.maintenance.topology-key", "topology.kubernetes.io/region"))
                        .perTopology())
                .isEqualTo(Optional.of(
                        new MaintenanceLimits.TopologyLimit("topology.kubernetes.io/region", new NodeCount(50, true))));
    }

    @ParameterizedTest(name = "{0}={1} stops the start")
    @CsvSource({
        "tenure.maintenance.max-nodes-in-maintenance, abc",
        "tenure.maintenance.max-nodes-in-maintenance, 101%",
        "tenure.maintenance.max-nodes-in-maintenance, -1",
        "tenure.maintenance.max-nodes-in-maintenance-per-topology, 1.5",
    })
    void aBadValueStopsTheStartNamingTheKey(String key, String value) {
        assertThatThrownBy(() -> config(Map.of(key, value)))
                .hasMessageContaining(key + ": must be a whole number of nodes >= 0 (e.g. 2) or a percentage of the"
                        + " nodes from 0% to 100% (e.g. 25%), was '" + value + "'");
    }
}
