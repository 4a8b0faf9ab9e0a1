package dev.tenure.coordination;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.election.Candidate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Each strategy's rules, one row per name a candidate may ask for. */
class LeaseStrategyTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            nullValues = "null",
            value = {
                // name,                       type,                   alwaysOn, ranked, avoidsUnavailable, label
                "OldestEmulationVersion,       OldestEmulationVersion, false,    true,   false, OldestEmulationVersion",
                "tenure.dev/MaintenanceAware,  MaintenanceAware,       true,     true,   true,  tenure.dev/MaintenanceAware",
                "example.com/ThirdParty,       Unknown,                false,    false,  false, other",
                "oldestemulationversion,       Unknown,                false,    false,  false, other",
                "null,                         Unknown,                false,    false,  false, other",
            })
    void eachStrategyOwnsItsRules(
            String name,
            String type,
            boolean alwaysOn,
            boolean ranked,
            boolean avoidsUnavailableNodes,
            String metricLabel) {
        LeaseStrategy strategy = LeaseStrategy.of(name);

        assertThat(strategy.getClass().getSimpleName()).isEqualTo(type);
        assertThat(strategy.name()).isEqualTo(name);
        assertThat(strategy.alwaysOn()).as("alwaysOn").isEqualTo(alwaysOn);
        assertThat(strategy.ranked()).as("ranked").isEqualTo(ranked);
        assertThat(strategy.avoidsUnavailableNodes())
                .as("avoidsUnavailableNodes")
                .isEqualTo(avoidsUnavailableNodes);
        assertThat(strategy.metricLabel()).as("metric label").isEqualTo(metricLabel);
    }

    @Test
    void theCandidateClientsDefaultIsTheUpstreamStrategyByOneConstant() {
        assertThat(OldestEmulationVersion.NAME).isSameAs(Candidate.OLDEST_EMULATION_VERSION);
    }
}
