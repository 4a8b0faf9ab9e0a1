package dev.tenure.maintenance.machine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.maintenance.api.NodeMaintenanceSpec;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What the Node condition {@code tenure.dev/Maintenance} says: spec.reason, else a default. A blank reason says
 * nothing (GeneratedInputIT, seed 3780571230079580367: {@code spec.reason: " "} became a blank condition message, so
 * a node left cordoned did not say why).
 */
class MaintenanceRequestTest {

    static Stream<Arguments> reasons() {
        return Stream.of(
                Arguments.of("absent", null, "", MaintenanceRequest.DEFAULT_CONDITION_MESSAGE),
                Arguments.of("empty", "", "", MaintenanceRequest.DEFAULT_CONDITION_MESSAGE),
                Arguments.of("one space", " ", "", MaintenanceRequest.DEFAULT_CONDITION_MESSAGE),
                Arguments.of("tabs and newlines", "\t\n ", "", MaintenanceRequest.DEFAULT_CONDITION_MESSAGE),
                Arguments.of("given", "kernel upgrade", "kernel upgrade", "kernel upgrade"),
                Arguments.of("given, with spaces around", " kernel upgrade ", " kernel upgrade ", " kernel upgrade "));
    }

    @ParameterizedTest(name = "spec.reason {0}")
    @MethodSource("reasons")
    void aBlankReasonGetsTheDefaultConditionMessage(String name, String reason, String kept, String message) {
        NodeMaintenanceSpec spec = new NodeMaintenanceSpec("w1", reason);
        MaintenanceRequest request = MaintenanceRequest.from(spec);
        assertThat(request.reason()).as("the reason, in events too").isEqualTo(kept);
        assertThat(request.conditionMessage()).isEqualTo(message).isNotBlank();
    }
}
