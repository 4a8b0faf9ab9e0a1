package dev.tenure.operator;

import dev.tenure.maintenance.admission.MaintenanceLimits;
import dev.tenure.maintenance.admission.MaintenanceLimits.NodeCount;
import org.eclipse.microprofile.config.spi.Converter;

/**
 * Reads a node count setting, {@code 2} or {@code 25%} (as Kubernetes' IntOrString {@code maxUnavailable}): a bad
 * value stops the start with a message naming the property, the rule and the value.
 */
abstract class NodeCountConverter implements Converter<NodeCount> {

    private final String setting;

    NodeCountConverter(String setting) {
        this.setting = setting;
    }

    @Override
    public NodeCount convert(String value) {
        return NodeCount.parse(setting, value);
    }

    /** {@code tenure.maintenance.max-nodes-in-maintenance}. */
    public static final class MaxNodes extends NodeCountConverter {
        private static final long serialVersionUID = 1L;

        public MaxNodes() {
            super(MaintenanceLimits.MAX_NODES_SETTING);
        }
    }

    /** {@code tenure.maintenance.max-nodes-in-maintenance-per-topology}. */
    public static final class PerTopology extends NodeCountConverter {
        private static final long serialVersionUID = 1L;

        public PerTopology() {
            super(MaintenanceLimits.PER_TOPOLOGY_SETTING);
        }
    }
}
