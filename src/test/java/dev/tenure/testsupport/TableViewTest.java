package dev.tenure.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 38: {@code kubectl get events/pdb/leasecandidates} on the emulator showed only NAME and AGE. The columns
 * are kube-apiserver's (pkg/printers/internalversion/printers.go: eventColumnDefinitions,
 * podDisruptionBudgetColumnDefinitions, leaseCandidateColumnDefinitions).
 */
class TableViewTest {

    private static final Instant NOW = Instant.parse("2026-01-01T12:00:00Z");
    private final ClusterStore store = new ClusterStore(new IndexedCrudDispatcher(100));
    private final TableView tables = new TableView(store, Clock.fixed(NOW, ZoneOffset.UTC));

    private JsonNode table(String object) {
        return store.tree(tables.table(object, "None"));
    }

    private static List<String> names(JsonNode table, int priority) {
        List<String> names = new ArrayList<>();
        table.path("columnDefinitions").forEach(c -> {
            if (c.path("priority").asInt() == priority) {
                names.add(c.path("name").asText());
            }
        });
        return names;
    }

    private static List<String> cells(JsonNode table) {
        List<String> cells = new ArrayList<>();
        table.at("/rows/0/cells").forEach(c -> cells.add(c.asText()));
        return cells;
    }

    @Test
    void eventsShowLastSeenTypeReasonObjectAndMessage() {
        JsonNode t = table("""
                {"apiVersion": "v1", "kind": "Event",
                 "metadata": {"name": "nm-1.drained.1a2b", "namespace": "default",
                              "creationTimestamp": "2026-01-01T11:00:00Z"},
                 "involvedObject": {"kind": "NodeMaintenance", "name": "nm-1"},
                 "type": "Normal", "reason": "Drained", "message": "node w1 drained ",
                 "count": 3, "firstTimestamp": "2026-01-01T11:00:00Z", "lastTimestamp": "2026-01-01T11:59:30Z",
                 "source": {"component": "tenure"}}
                """);
        assertThat(names(t, 0)).containsExactly("Last Seen", "Type", "Reason", "Object", "Message");
        assertThat(names(t, 1)).containsExactly("Subobject", "Source", "First Seen", "Count", "Name");
        assertThat(cells(t))
                .containsExactly(
                        "30s",
                        "Normal",
                        "Drained",
                        "nodemaintenance/nm-1",
                        "",
                        "tenure",
                        "node w1 drained",
                        "60m",
                        "3",
                        "nm-1.drained.1a2b");
    }

    @Test
    void podDisruptionBudgetsShowTheirLimitsAndAllowedDisruptions() {
        JsonNode t = table("""
                {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
                 "metadata": {"name": "web", "namespace": "default", "creationTimestamp": "2026-01-01T11:58:00Z"},
                 "spec": {"minAvailable": "50%"}, "status": {"disruptionsAllowed": 1}}
                """);
        assertThat(names(t, 0))
                .containsExactly("Name", "Min Available", "Max Unavailable", "Allowed Disruptions", "Age");
        assertThat(cells(t)).containsExactly("web", "50%", "N/A", "1", "2m");
    }

    @Test
    void leaseCandidatesShowTheirLeaseAndVersions() {
        JsonNode t = table("""
                {"apiVersion": "coordination.k8s.io/v1beta1", "kind": "LeaseCandidate",
                 "metadata": {"name": "app-a", "namespace": "default", "creationTimestamp": "2026-01-01T11:59:00Z"},
                 "spec": {"leaseName": "app", "binaryVersion": "1.33.0", "emulationVersion": "1.32.0"}}
                """);
        assertThat(names(t, 0)).containsExactly("Name", "LeaseName", "BinaryVersion", "EmulationVersion", "Age");
        assertThat(cells(t)).containsExactly("app-a", "app", "1.33.0", "1.32.0", "60s");
    }
}
