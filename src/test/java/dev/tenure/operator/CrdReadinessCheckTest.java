package dev.tenure.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionBuilder;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class CrdReadinessCheckTest {

    private static final String NAME = "nodemaintenances.tenure.dev";

    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of("missing CRD", Optional.empty(), false, "missing: install it from deploy/"),
                Arguments.of(
                        "no status at all", Optional.of(crd()), true, "present (the API server reports no conditions)"),
                Arguments.of(
                        "names accepted, not yet established",
                        Optional.of(crd("NamesAccepted", "True", "NoConflicts", "no conflicts found")),
                        false,
                        "not established yet"),
                Arguments.of(
                        "established",
                        Optional.of(crd("Established", "True", "InitialNamesAccepted", "ok")),
                        true,
                        "Established"),
                Arguments.of(
                        "not established",
                        Optional.of(crd("Established", "False", "Installing", "in progress")),
                        false,
                        "not established: Installing in progress"),
                Arguments.of(
                        "name conflict",
                        Optional.of(crd(
                                "NamesAccepted",
                                "False",
                                "ListKindConflict",
                                "\"NodeMaintenanceList\" is already in use")),
                        false,
                        "names not accepted: ListKindConflict"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void assessesCrdState(String name, Optional<CustomResourceDefinition> crd, boolean ready, String detail) {
        CrdReadinessCheck.CrdState state = CrdReadinessCheck.assess(NAME, crd);
        assertThat(state.established()).isEqualTo(ready);
        assertThat(state.detail()).contains(detail);
    }

    private static CustomResourceDefinition crd(String... condition) {
        CustomResourceDefinitionBuilder builder = new CustomResourceDefinitionBuilder()
                .withNewMetadata()
                .withName(NAME)
                .endMetadata();
        if (condition.length > 0) {
            builder.withNewStatus()
                    .addNewCondition()
                    .withType(condition[0])
                    .withStatus(condition[1])
                    .withReason(condition[2])
                    .withMessage(condition[3])
                    .endCondition()
                    .endStatus();
        }
        return builder.build();
    }
}
