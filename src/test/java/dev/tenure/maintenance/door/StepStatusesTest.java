package dev.tenure.maintenance.door;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The status the door writes after a machine step it ran. */
class StepStatusesTest {

    @ParameterizedTest(name = "machine error [{0}] -> [{1}]")
    @CsvSource(
            nullValues = "null",
            delimiter = '|',
            value = {
                "null | NOTE",
                "'' | NOTE",
                "drain blocked | NOTE; drain blocked",
                "NOTE; drain blocked | NOTE; drain blocked",
                "NOTE | NOTE",
            })
    void theMoveNoteLeadsTheMachinesErrorOnce(String machineError, String expected) {
        String note = "spec.nodeName: is immutable";

        assertThat(StepStatuses.withMoveNote(machineError == null ? null : machineError.replace("NOTE", note), note))
                .isEqualTo(expected.replace("NOTE", note));
    }
}
