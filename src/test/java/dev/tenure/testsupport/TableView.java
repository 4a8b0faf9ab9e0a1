package dev.tenure.testsupport;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * Server-side printing, as kube-apiserver answers {@code Accept: application/json;as=Table;v=v1;g=meta.k8s.io}
 * (what {@code kubectl get} asks for): a {@code meta.k8s.io/v1} Table with the CRD's additionalPrinterColumns for a
 * custom resource, the usual columns for nodes, pods, namespaces, leases, events, PodDisruptionBudgets and
 * LeaseCandidates, and Name and Age for anything else. A row
 * carries the object as {@code includeObject} asks: PartialObjectMetadata (the default), the whole object, or none.
 */
final class TableView {

    private static final JsonNodeFactory F = JsonNodeFactory.instance;
    static final String TABLE_CONTENT_TYPE = "application/json;as=Table;v=v1;g=meta.k8s.io";

    private final ClusterStore store;
    private final Clock clock;

    TableView(ClusterStore store, Clock clock) {
        this.store = store;
        this.clock = clock;
    }

    static boolean wanted(String accept) {
        return accept != null && accept.contains("as=Table");
    }

    /** A column: its definition and how a cell is read from an object. */
    private record Column(String name, String type, String format, int priority, Function<JsonNode, JsonNode> cell) {
        ObjectNode definition() {
            ObjectNode d = F.objectNode()
                    .put("name", name)
                    .put("type", type)
                    .put("format", format)
                    .put("description", "")
                    .put("priority", priority);
            return d;
        }
    }

    /** A list ({@code items}) or a single object as a Table. */
    String table(String body, String includeObject) {
        JsonNode parsed = store.tree(body);
        List<JsonNode> objects = new ArrayList<>();
        if (parsed.has("items")) {
            parsed.path("items").forEach(objects::add);
        } else {
            objects.add(parsed);
        }
        JsonNode first = objects.isEmpty() ? parsed : objects.get(0);
        String apiVersion = objects.isEmpty()
                ? listApiVersion(parsed)
                : first.path("apiVersion").asText();
        String kind = objects.isEmpty() ? listKind(parsed) : first.path("kind").asText();
        List<Column> columns = columns(apiVersion, kind);
        ObjectNode table = F.objectNode().put("kind", "Table").put("apiVersion", "meta.k8s.io/v1");
        ObjectNode metadata = table.putObject("metadata");
        if (parsed.path("metadata").has("resourceVersion")) {
            metadata.put(
                    "resourceVersion",
                    parsed.path("metadata").path("resourceVersion").asText());
        }
        ArrayNode definitions = table.putArray("columnDefinitions");
        columns.forEach(c -> definitions.add(c.definition()));
        ArrayNode rows = table.putArray("rows");
        objects.forEach(o -> rows.add(row(o, columns, includeObject)));
        return table.toString();
    }

    /** One watch event line with its object as a one-row Table (errors and bookmarks pass unchanged). */
    String watchEvent(String event, String includeObject) {
        JsonNode e = store.tree(event);
        JsonNode object = e.path("object");
        if (!e.has("type") || "ERROR".equals(e.path("type").asText()) || !object.has("metadata")) {
            return event;
        }
        ObjectNode out = (ObjectNode) e.deepCopy();
        out.set("object", store.tree(table(object.toString(), includeObject)));
        return out.toString();
    }

    private ObjectNode row(JsonNode o, List<Column> columns, String includeObject) {
        ObjectNode row = F.objectNode();
        ArrayNode cells = row.putArray("cells");
        columns.forEach(c -> cells.add(c.cell().apply(o)));
        if ("Object".equals(includeObject)) {
            row.set("object", o);
        } else if (!"None".equals(includeObject)) {
            ObjectNode partial =
                    row.putObject("object").put("kind", "PartialObjectMetadata").put("apiVersion", "meta.k8s.io/v1");
            partial.set("metadata", o.path("metadata"));
        }
        return row;
    }

    private List<Column> columns(String apiVersion, String kind) {
        if ("v1/Event".equals(apiVersion + "/" + kind)) {
            return eventColumns();
        }
        List<Column> columns = new ArrayList<>();
        columns.add(new Column("Name", "string", "name", 0, o -> text(o.at("/metadata/name"))));
        Optional<JsonNode> printerColumns = printerColumns(apiVersion, kind);
        if (printerColumns.isPresent()) {
            for (JsonNode c : printerColumns.get()) {
                String path = c.path("jsonPath").asText();
                String type = c.path("type").asText("string");
                // a date cell is printed as an age, as the API server's CRD table convertor does
                columns.add(new Column(
                        c.path("name").asText(),
                        type,
                        c.path("format").asText(""),
                        c.path("priority").asInt(0),
                        o -> "date".equals(type) && jsonPath(o, path).isTextual()
                                ? F.textNode(age(jsonPath(o, path).asText()))
                                : cell(jsonPath(o, path), type)));
            }
            if (printerColumns.get().isEmpty()) {
                columns.add(age());
            }
            return columns;
        }
        switch (apiVersion + "/" + kind) {
            case "v1/Node" -> {
                columns.add(new Column("Status", "string", "", 0, TableView::nodeStatus));
                columns.add(new Column("Roles", "string", "", 0, TableView::nodeRoles));
                columns.add(age());
                columns.add(new Column("Version", "string", "", 0, o -> text(o.at("/status/nodeInfo/kubeletVersion"))));
            }
            case "v1/Pod" -> {
                columns.add(new Column("Ready", "string", "", 0, TableView::podReady));
                columns.add(new Column("Status", "string", "", 0, TableView::podStatus));
                columns.add(new Column("Restarts", "string", "", 0, TableView::podRestarts));
                columns.add(age());
                columns.add(new Column("IP", "string", "", 1, o -> text(o.at("/status/podIP"))));
                columns.add(new Column("Node", "string", "", 1, o -> text(o.at("/spec/nodeName"))));
            }
            case "v1/Namespace" -> {
                columns.add(new Column(
                        "Status",
                        "string",
                        "",
                        0,
                        o -> F.textNode(o.at("/status/phase").asText("Active"))));
                columns.add(age());
            }
            case "coordination.k8s.io/v1/Lease" -> {
                columns.add(new Column("Holder", "string", "", 0, o -> text(o.at("/spec/holderIdentity"))));
                columns.add(age());
            }
            case "policy/v1/PodDisruptionBudget" -> {
                columns.add(new Column("Min Available", "string", "", 0, o -> orNa(o.at("/spec/minAvailable"))));
                columns.add(new Column("Max Unavailable", "string", "", 0, o -> orNa(o.at("/spec/maxUnavailable"))));
                columns.add(new Column(
                        "Allowed Disruptions",
                        "integer",
                        "",
                        0,
                        o -> F.numberNode(o.at("/status/disruptionsAllowed").asLong(0))));
                columns.add(age());
            }
            default -> {
                if (apiVersion.startsWith("coordination.k8s.io/") && "LeaseCandidate".equals(kind)) {
                    columns.add(new Column("LeaseName", "string", "", 0, o -> plain(o.at("/spec/leaseName"))));
                    columns.add(new Column("BinaryVersion", "string", "", 0, o -> plain(o.at("/spec/binaryVersion"))));
                    columns.add(new Column(
                            "EmulationVersion", "string", "", 0, o -> plain(o.at("/spec/emulationVersion"))));
                }
                columns.add(age());
            }
        }
        return columns;
    }

    /**
     * kube-apiserver's columns for core/v1 Events (pkg/printers/internalversion): no Name first, it is the last
     * column of {@code -o wide}; Object is {@code <kind in lower case>/<name>}.
     */
    private List<Column> eventColumns() {
        List<Column> columns = new ArrayList<>();
        columns.add(new Column("Last Seen", "string", "", 0, this::eventLastSeen));
        columns.add(new Column("Type", "string", "", 0, o -> plain(o.path("type"))));
        columns.add(new Column("Reason", "string", "", 0, o -> plain(o.path("reason"))));
        columns.add(new Column("Object", "string", "", 0, TableView::eventObject));
        columns.add(new Column("Subobject", "string", "", 1, o -> plain(o.at("/involvedObject/fieldPath"))));
        columns.add(new Column("Source", "string", "", 1, TableView::eventSource));
        columns.add(new Column(
                "Message",
                "string",
                "",
                0,
                o -> F.textNode(o.path("message").asText("").strip())));
        columns.add(new Column("First Seen", "string", "", 1, this::eventFirstSeen));
        columns.add(new Column(
                "Count",
                "string",
                "",
                1,
                o -> F.numberNode(Math.max(1, o.path("count").asLong(0)))));
        columns.add(new Column("Name", "string", "name", 1, o -> text(o.at("/metadata/name"))));
        return columns;
    }

    private JsonNode eventFirstSeen(JsonNode o) {
        String first = o.path("firstTimestamp").asText("");
        return F.textNode(age(first.isEmpty() ? o.path("eventTime").asText("") : first));
    }

    private JsonNode eventLastSeen(JsonNode o) {
        String last = o.path("lastTimestamp").asText("");
        return last.isEmpty() ? eventFirstSeen(o) : F.textNode(age(last));
    }

    private static JsonNode eventObject(JsonNode o) {
        String kind = o.at("/involvedObject/kind").asText("").toLowerCase(java.util.Locale.ROOT);
        String name = o.at("/involvedObject/name").asText("");
        return F.textNode(name.isEmpty() ? kind : kind + "/" + name);
    }

    private static JsonNode eventSource(JsonNode o) {
        String component = o.at("/source/component").asText("");
        String host = o.at("/source/host").asText("");
        component = component.isEmpty() ? o.path("reportingComponent").asText("") : component;
        host = host.isEmpty() ? o.path("reportingInstance").asText("") : host;
        return F.textNode(host.isEmpty() ? component : component + ", " + host);
    }

    private static JsonNode orNa(JsonNode value) {
        return value.isMissingNode() || value.isNull() ? F.textNode("N/A") : F.textNode(value.asText());
    }

    private static JsonNode plain(JsonNode value) {
        return F.textNode(value.isMissingNode() || value.isNull() ? "" : value.asText());
    }

    /** The additionalPrinterColumns of the served version of the CRD for this kind, if it is a custom resource. */
    private Optional<JsonNode> printerColumns(String apiVersion, String kind) {
        if (!apiVersion.contains("/")) {
            return Optional.empty();
        }
        String group = apiVersion.substring(0, apiVersion.indexOf('/'));
        String version = apiVersion.substring(apiVersion.indexOf('/') + 1);
        return store.crdVersion(group, version, kind).map(v -> v.path("additionalPrinterColumns"));
    }

    private Column age() {
        return new Column(
                "Age",
                "string",
                "",
                0,
                o -> F.textNode(age(o.at("/metadata/creationTimestamp").asText(""))));
    }

    String age(String timestamp) {
        if (timestamp.isEmpty()) {
            return "<unknown>";
        }
        return humanDuration(Duration.between(Instant.parse(timestamp), clock.instant()));
    }

    /** kubectl's duration.HumanDuration. */
    static String humanDuration(Duration d) {
        long s = Math.max(0, d.toSeconds());
        if (s < 120) {
            return s + "s";
        }
        long m = s / 60;
        if (m < 10) {
            return s % 60 == 0 ? m + "m" : m + "m" + (s % 60) + "s";
        }
        if (m < 180) {
            return m + "m";
        }
        long h = m / 60;
        if (h < 8) {
            return m % 60 == 0 ? h + "h" : h + "h" + (m % 60) + "m";
        }
        if (h < 48) {
            return h + "h";
        }
        long days = h / 24;
        if (days < 8) {
            return h % 24 == 0 ? days + "d" : days + "d" + (h % 24) + "h";
        }
        return days < 730 ? days + "d" : (days / 365) + "y";
    }

    /** The value at a CRD column's JSONPath: dotted fields with optional [n] indexes, e.g. {@code .status.phase}. */
    static JsonNode jsonPath(JsonNode o, String path) {
        JsonNode at = o;
        for (String part :
                path.replaceFirst("^\\{?\\.", "").replaceFirst("}$", "").split("\\.")) {
            if (part.isEmpty()) {
                continue;
            }
            String field = part.replaceAll("\\[.*", "");
            at = at.path(field);
            var index = java.util.regex.Pattern.compile("\\[(\\d+)]").matcher(part);
            while (index.find()) {
                at = at.path(Integer.parseInt(index.group(1)));
            }
        }
        return at;
    }

    private static JsonNode cell(JsonNode value, String type) {
        if (value.isMissingNode() || value.isNull()) {
            return F.nullNode();
        }
        return switch (type) {
            case "integer" -> value.canConvertToLong() ? F.numberNode(value.asLong()) : F.textNode(value.asText());
            case "number" -> value.isNumber() ? value : F.textNode(value.asText());
            case "boolean" -> value.isBoolean() ? value : F.textNode(value.asText());
            default -> value.isValueNode() ? F.textNode(value.asText()) : F.textNode(value.toString());
        };
    }

    private static JsonNode text(JsonNode value) {
        return value.isMissingNode() || value.isNull() ? F.textNode("<none>") : F.textNode(value.asText());
    }

    private static JsonNode nodeStatus(JsonNode o) {
        String ready = "Unknown";
        for (JsonNode c : o.at("/status/conditions")) {
            if ("Ready".equals(c.path("type").asText())) {
                ready = "True".equals(c.path("status").asText()) ? "Ready" : "NotReady";
            }
        }
        return F.textNode(o.at("/spec/unschedulable").asBoolean(false) ? ready + ",SchedulingDisabled" : ready);
    }

    private static JsonNode nodeRoles(JsonNode o) {
        List<String> roles = new ArrayList<>();
        o.at("/metadata/labels").fieldNames().forEachRemaining(l -> {
            if (l.startsWith("node-role.kubernetes.io/")) {
                roles.add(l.substring("node-role.kubernetes.io/".length()));
            }
        });
        return F.textNode(roles.isEmpty() ? "<none>" : String.join(",", roles));
    }

    private static JsonNode podReady(JsonNode o) {
        int total = o.at("/spec/containers").size();
        if (!o.at("/status/containerStatuses").isArray()
                && "Running".equals(o.at("/status/phase").asText())) {
            return F.textNode(total + "/" + total); // the simulated kubelets report a phase, not container states
        }
        int ready = 0;
        for (JsonNode s : o.at("/status/containerStatuses")) {
            ready += s.path("ready").asBoolean(false) ? 1 : 0;
        }
        return F.textNode(ready + "/" + total);
    }

    private static JsonNode podStatus(JsonNode o) {
        if (o.at("/metadata/deletionTimestamp").isTextual()) {
            return F.textNode("Terminating");
        }
        return F.textNode(o.at("/status/phase").asText("Pending"));
    }

    private static JsonNode podRestarts(JsonNode o) {
        int restarts = 0;
        for (JsonNode s : o.at("/status/containerStatuses")) {
            restarts += s.path("restartCount").asInt(0);
        }
        return F.textNode(String.valueOf(restarts));
    }

    private static String listApiVersion(JsonNode list) {
        return list.path("apiVersion").asText("v1");
    }

    private static String listKind(JsonNode list) {
        return list.path("kind").asText("List").replaceFirst("List$", "");
    }
}
