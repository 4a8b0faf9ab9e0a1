package dev.tenure.operator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.operator.GrantedPermissions.Permission;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docs/install.md's RBAC table says every grant of the plain manifests: each (role, resource[/subresource], verb,
 * resourceNames) of every ClusterRole and Role in {@code deploy/tenure-operator.yaml} is in the row of its role and
 * resource, and the table names no role or resource the manifests do not grant. {@link RbacLeastPrivilegeCheck}
 * proves the roles match the code; this proves the page matches the roles.
 */
class InstallRbacTableTest {

    private static final Path INSTALL = Path.of("docs", "install.md");
    private static final Path MANIFESTS = Path.of("deploy", "tenure-operator.yaml");
    private static final Pattern QUOTED = Pattern.compile("`([^`]+)`");

    /** One row of the table, its role carried down from the row that names it. */
    record Row(String role, String resources, String verbs) {}

    @Test
    void everyGeneratedGrantIsInTheTableAndTheTableNamesNoOther() throws IOException {
        List<Permission> granted = generated(Files.readString(MANIFESTS));
        assertThat(granted).isNotEmpty();
        assertThat(problems(rows(Files.readString(INSTALL)), granted)).isEmpty();
    }

    @Test
    void aMissingRowAVerbOrAStaleRoleIsReported() {
        String page = """
                **RBAC.** The roles:

                | Role | Resource | Verbs | For |
                |---|---|---|---|
                | ClusterRole `a` | `nodes` | get, patch; `/status`: patch | x |
                | | `pods` | list | y |
                | ClusterRole `gone` | `things` | get | z |
                | Role `b` (operator's namespace) | `leases` | create; get on `mine` only | w |
                """;
        List<Permission> granted = List.of(
                new Permission("get", "", "nodes", "", "a"),
                new Permission("patch", "", "nodes", "", "a"),
                new Permission("patch", "", "nodes/status", "", "a"),
                new Permission("watch", "", "pods", "", "a"),
                new Permission("get", "", "persistentvolumeclaims", "", "a"),
                new Permission("create", "coordination.k8s.io", "leases", "ns", "b"),
                new Permission("get", "coordination.k8s.io", "leases", "ns", "b", java.util.Set.of("other")));

        assertThat(problems(rows(page), granted))
                .containsExactlyInAnyOrder(
                        "watch \"\" pods cluster-wide, from a: verb watch not in the row of `pods`",
                        "get \"\" persistentvolumeclaims cluster-wide, from a: no row for `persistentvolumeclaims`",
                        "get coordination.k8s.io leases named other in namespace ns, from b: resource name other not"
                                + " in the row of `leases`",
                        "the table's role gone grants nothing in " + MANIFESTS,
                        "the table's row `things` of role gone: the role grants no things");
    }

    /** Every rule of every ClusterRole and Role of the plain manifests. */
    static List<Permission> generated(String yaml) {
        List<Permission> out = new ArrayList<>();
        for (Map<String, Object> doc : ManifestAssembly.parseAll(yaml)) {
            String kind = String.valueOf(doc.get("kind"));
            if (!kind.equals("ClusterRole") && !kind.equals("Role")) {
                continue;
            }
            String name = ManifestAssembly.at(doc, "metadata", "name");
            String namespace = kind.equals("Role")
                    ? Objects.requireNonNullElse(ManifestAssembly.at(doc, "metadata", "namespace"), "")
                    : "";
            List<Map<String, Object>> rules = Objects.requireNonNullElse(ManifestAssembly.at(doc, "rules"), List.of());
            out.addAll(GrantedPermissions.expand(rules, namespace, name));
        }
        return out;
    }

    /** The rows of the first table after the line that starts with {@code **RBAC.**}. */
    static List<Row> rows(String page) {
        List<Row> out = new ArrayList<>();
        boolean inSection = false;
        boolean inTable = false;
        String role = null;
        for (String line : page.split("\n", -1)) {
            if (line.startsWith("**RBAC.**")) {
                inSection = true;
                continue;
            }
            if (!inSection) {
                continue;
            }
            if (!line.startsWith("|")) {
                if (inTable) {
                    break;
                }
                continue;
            }
            inTable = true;
            String[] cells = line.split("\\|", -1);
            if (cells.length < 4
                    || cells[1].trim().equals("Role")
                    || cells[1].trim().startsWith("---")) {
                continue;
            }
            if (!cells[1].isBlank()) {
                Matcher name = QUOTED.matcher(cells[1]);
                role = name.find() ? name.group(1) : cells[1].trim();
            }
            out.add(new Row(role, cells[2], cells[3]));
        }
        return out;
    }

    /** What the table lacks of {@code granted}, and what it names that is not granted; empty when they agree. */
    static List<String> problems(List<Row> rows, List<Permission> granted) {
        List<String> out = new ArrayList<>();
        for (Permission p : granted) {
            int slash = p.resource().indexOf('/');
            String base = slash < 0 ? p.resource() : p.resource().substring(0, slash);
            String sub = slash < 0 ? null : p.resource().substring(slash);
            List<Row> candidates = rows.stream()
                    .filter(r -> r.role().equals(p.role()) && resourcesOf(r).contains(base))
                    .toList();
            if (candidates.isEmpty()) {
                out.add(p + ": no row for `" + base + "`");
            } else if (candidates.stream()
                    .noneMatch(r -> Pattern.compile("\\b" + p.verb() + "\\b")
                            .matcher(part(r.verbs(), sub))
                            .find())) {
                out.add(p + ": verb " + p.verb() + " not in the row of `" + base + "`"
                        + (sub == null ? "" : " under `" + sub + "`:"));
            } else {
                for (String name : p.resourceNames()) {
                    if (candidates.stream().noneMatch(r -> r.verbs().contains("`" + name + "`"))) {
                        out.add(p + ": resource name " + name + " not in the row of `" + base + "`");
                    }
                }
            }
        }
        Map<String, List<Row>> byRole = new LinkedHashMap<>();
        rows.forEach(
                r -> byRole.computeIfAbsent(r.role(), k -> new ArrayList<>()).add(r));
        for (Map.Entry<String, List<Row>> role : byRole.entrySet()) {
            List<Permission> its =
                    granted.stream().filter(p -> p.role().equals(role.getKey())).toList();
            if (its.isEmpty()) {
                out.add("the table's role " + role.getKey() + " grants nothing in " + MANIFESTS);
            }
            for (Row r : role.getValue()) {
                for (String resource : resourcesOf(r)) {
                    if (its.stream()
                            .noneMatch(p -> p.resource().equals(resource)
                                    || p.resource().startsWith(resource + "/"))) {
                        out.add("the table's row `" + resource + "` of role " + role.getKey() + ": the role grants no "
                                + resource);
                    }
                }
            }
        }
        return out;
    }

    /** The resources a row names: its backquoted words outside parentheses (which hold API groups). */
    private static List<String> resourcesOf(Row r) {
        String outside = r.resources().replaceAll("\\([^)]*\\)", "");
        List<String> out = new ArrayList<>();
        Matcher m = QUOTED.matcher(outside);
        while (m.find()) {
            out.add(m.group(1));
        }
        return out;
    }

    /** The part of a verbs cell for the resource itself (before any {@code `/sub`:}), or after {@code `/sub`:}. */
    private static String part(String verbs, String sub) {
        if (sub == null) {
            int at = verbs.indexOf("`/");
            return at < 0 ? verbs : verbs.substring(0, at);
        }
        int at = verbs.indexOf("`" + sub + "`:");
        if (at < 0) {
            return "";
        }
        String rest = verbs.substring(at + sub.length() + 3);
        int next = rest.indexOf("`/");
        return next < 0 ? rest : rest.substring(0, next);
    }
}
