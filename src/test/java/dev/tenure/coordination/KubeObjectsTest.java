package dev.tenure.coordination;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.election.CandidateRecord;
import dev.tenure.election.kube.KubeLeaseCandidateStore;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class KubeObjectsTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "2026-01-01T12:00:00Z,             2026-01-01T12:00:00.000000Z",
        "2026-01-01T12:00:00.123456789Z,   2026-01-01T12:00:00.123456Z",
        "2026-01-01T12:00:00.5Z,           2026-01-01T12:00:00.500000Z",
    })
    void microTimeHasSixFractionalDigits(String instant, String wire) {
        assertThat(KubeObjects.microTime(Instant.parse(instant))).isEqualTo(wire);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "2026-01-01T12:00:00.123456Z,      2026-01-01T12:00:00.123456Z",
        "2026-01-01T12:00:00Z,             2026-01-01T12:00:00Z",
        "2026-01-01T14:00:00.5+02:00,      2026-01-01T12:00:00.500Z",
    })
    void parsesApiServerTimes(String wire, String instant) {
        assertThat(KubeLeaseCandidateStore.parseTime(wire)).isEqualTo(Instant.parse(instant));
    }

    @Test
    void readsAGenericLeaseCandidate() {
        var r = new GenericKubernetesResourceBuilder()
                .withApiVersion("coordination.k8s.io/v1alpha2")
                .withKind("LeaseCandidate")
                .withNewMetadata()
                .withName("c1")
                .withNamespace("ns")
                .withResourceVersion("42")
                .withCreationTimestamp("2026-01-01T11:00:00Z")
                .withLabels(Map.of("tenure.dev/node", "n1"))
                .endMetadata()
                .addToAdditionalProperties(
                        "spec",
                        Map.of(
                                "leaseName",
                                "l",
                                "binaryVersion",
                                "1.31.0",
                                "emulationVersion",
                                "1.30.0",
                                "strategy",
                                "OldestEmulationVersion",
                                "renewTime",
                                "2026-01-01T12:00:00.000001Z",
                                "pingTime",
                                "2026-01-01T11:59:00.000000Z"))
                .build();
        CandidateRecord c = KubeLeaseCandidateStore.toRecord(r);
        assertThat(c)
                .isEqualTo(new CandidateRecord(
                        "ns",
                        "c1",
                        "l",
                        "1.31.0",
                        "1.30.0",
                        "OldestEmulationVersion",
                        Instant.parse("2026-01-01T12:00:00.000001Z"),
                        Instant.parse("2026-01-01T11:59:00Z"),
                        Instant.parse("2026-01-01T11:00:00Z"),
                        Map.of("tenure.dev/node", "n1"),
                        "42"));
        assertThat(c.nodeLabel()).isEqualTo("n1");
    }
}
