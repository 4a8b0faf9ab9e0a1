package dev.tenure.maintenance.drain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.maintenance.drain.SurgeRecord.ChangedBySomeoneElse;
import dev.tenure.maintenance.drain.SurgeRecord.Lower;
import dev.tenure.maintenance.drain.SurgeRecord.NothingToGive;
import dev.tenure.maintenance.drain.SurgeRecord.Raise;
import dev.tenure.maintenance.drain.SurgeRecord.Raised;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 51 item 2: the surge's record on the workload, and what the replicas found mean after a restart and at the
 * give-back: only the difference the surge made is ever given back; a foreign change is left as it is.
 */
class SurgeRecordTest {

    static final SurgeRecord ONE = new SurgeRecord("uid-1", "m1", "w2", 1, 1);

    record Row(String name, int replicasNow, Object afterCrash, Object giveBack) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Row> rows() {
        return Stream.of(
                new Row("recorded, never raised (crash before the scale write)", 1, new Raise(2), new NothingToGive()),
                new Row("raised by the surge", 2, new Raised(), new Lower(1)),
                new Row(
                        "an HPA or a person scaled up meanwhile",
                        3,
                        ChangedBySomeoneElse.class,
                        ChangedBySomeoneElse.class),
                new Row("scaled to zero meanwhile", 0, ChangedBySomeoneElse.class, ChangedBySomeoneElse.class));
    }

    @ParameterizedTest
    @MethodSource("rows")
    void replicasFoundMean(Row row) {
        assertMatches(ONE.afterCrash(row.replicasNow()), row.afterCrash());
        assertMatches(ONE.giveBack(row.replicasNow()), row.giveBack());
    }

    static void assertMatches(Object actual, Object expected) {
        if (expected instanceof Class<?> c) {
            assertThat(actual).isInstanceOf(c);
            assertThat(((ChangedBySomeoneElse) actual).why())
                    .contains("changed by someone else")
                    .contains("left as they are");
        } else {
            assertThat(actual).isEqualTo(expected);
        }
    }

    @Test
    void theAnnotationRoundTrips() {
        SurgeRecord r = new SurgeRecord("uid-1", "m1", "w2", 4, 2);

        assertThat(SurgeRecord.parse(r.toJson())).isEqualTo(r);
        assertThat(r.target()).isEqualTo(6);
        assertThat(r.toJson())
                .isEqualTo("{\"maintenanceUid\":\"uid-1\",\"maintenance\":\"m1\",\"node\":\"w2\",\"replicas\":4,"
                        + "\"added\":2}");
    }

    @Test
    void aMalformedAnnotationIsRefusedNamingTheField() {
        assertThatThrownBy(() -> SurgeRecord.parse("yes"))
                .hasMessageStartingWith(SurgeRecord.ANNOTATION + ": not JSON");
        assertThatThrownBy(() -> SurgeRecord.parse("[]"))
                .hasMessageStartingWith(SurgeRecord.ANNOTATION + ": must be a JSON object");
        assertThatThrownBy(
                        () -> SurgeRecord.parse(
                                "{\"maintenanceUid\":\"u\",\"maintenance\":\"m\",\"node\":\"n\",\"replicas\":\"1\",\"added\":1}"))
                .hasMessage(SurgeRecord.ANNOTATION + ".replicas: must be an integer");
        assertThatThrownBy(() -> SurgeRecord.parse(
                        "{\"maintenanceUid\":\"u\",\"maintenance\":\"m\",\"node\":\"n\",\"replicas\":1,\"added\":0}"))
                .hasMessage(SurgeRecord.ANNOTATION + ".added: must be >= 1, was 0");
        assertThatThrownBy(() -> SurgeRecord.parse("{\"maintenance\":\"m\",\"node\":\"n\",\"replicas\":1,\"added\":1}"))
                .hasMessage(SurgeRecord.ANNOTATION + ".maintenanceUid: must be a string");
    }

    /** Another maintenance's record, met by a maintenance that would surge the workload: its owner decides. */
    record NotOursRow(String name, String uidFound, int replicasNow, Class<? extends SurgeRecord.NotOurs> decision) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<NotOursRow> notOursRows() {
        return Stream.of(
                new NotOursRow("its maintenance exists, never raised", "uid-1", 1, SurgeRecord.OwnersSurge.class),
                new NotOursRow("its maintenance exists, raised", "uid-1", 2, SurgeRecord.OwnersSurge.class),
                new NotOursRow(
                        "its maintenance exists, someone else's count", "uid-1", 3, SurgeRecord.OwnersSurge.class),
                new NotOursRow("gone (404), the owner's count", null, 1, SurgeRecord.Orphaned.class),
                new NotOursRow(
                        "recreated under its name (another UID), the owner's count",
                        "uid-2",
                        1,
                        SurgeRecord.Orphaned.class),
                new NotOursRow("gone, raised and never given back", null, 2, SurgeRecord.OrphanedSurge.class),
                new NotOursRow(
                        "recreated under its name, raised and never given back",
                        "uid-2",
                        2,
                        SurgeRecord.OrphanedSurge.class),
                new NotOursRow("gone, someone else's count", null, 5, SurgeRecord.OrphanedSurge.class),
                new NotOursRow("gone, scaled to zero", null, 0, SurgeRecord.OrphanedSurge.class));
    }

    @ParameterizedTest
    @MethodSource("notOursRows")
    void anotherMaintenancesRecordIsDecidedByWhetherItsOwnerExists(NotOursRow row) {
        assertThat(ONE.notOurs(row.uidFound(), row.replicasNow())).isInstanceOf(row.decision());
    }

    @Test
    void anOrphanedSurgeSaysWhoseRecordItIsAndWhatAnAdminDoes() {
        SurgeRecord.NotOurs left = ONE.notOurs(null, 2);

        assertThat(left).isInstanceOf(SurgeRecord.OrphanedSurge.class);
        assertThat(((SurgeRecord.OrphanedSurge) left).why())
                .contains("names NodeMaintenance m1 (uid uid-1), which no longer exists")
                .contains("replicas are 2, not the 1 it recorded as the owner's (2 while its surge was raised)")
                .contains("scale it back to 1, then remove the annotation " + SurgeRecord.ANNOTATION);
    }
}
