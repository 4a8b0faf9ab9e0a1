package dev.tenure.operator;

import static dev.tenure.operator.ManifestAssembly.at;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cel.common.CelValidationException;
import dev.cel.common.types.SimpleType;
import dev.cel.common.values.NullValue;
import dev.cel.compiler.CelCompiler;
import dev.cel.compiler.CelCompilerFactory;
import dev.cel.extensions.CelExtensions;
import dev.cel.parser.CelStandardMacro;
import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelRuntime;
import dev.cel.runtime.CelRuntimeFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Issue 26.4: the ValidatingAdmissionPolicy shipped in deploy/ bounds the operator's cluster-wide Lease write.
 * Its CEL (match conditions, then validations) is evaluated with CEL-Java, with the variables and the strings
 * extension ({@code split}) kube-apiserver gives a policy, against the committed deploy/lease-guard.yaml: the
 * operator's identity cannot write a Lease in kube-node-lease or kube-system, nor a non-coordinated Lease
 * outside its own namespace; other identities are not matched at all.
 */
class LeaseGuardPolicyTest {

    private static final CelCompiler COMPILER = CelCompilerFactory.standardCelCompilerBuilder()
            .setStandardMacros(CelStandardMacro.STANDARD_MACROS)
            .addVar("request", SimpleType.DYN)
            .addVar("object", SimpleType.DYN)
            .addVar("oldObject", SimpleType.DYN)
            .addVar("variables", SimpleType.DYN)
            .addLibraries(CelExtensions.strings())
            .build();
    private static final CelRuntime RUNTIME = CelRuntimeFactory.standardCelRuntimeBuilder()
            .addLibraries(CelExtensions.strings())
            .build();

    static final String OPERATOR = "system:serviceaccount:tenure-system:tenure-operator";
    static final String OPERATOR_ELSEWHERE = "system:serviceaccount:openshift-operators:tenure-operator";

    /**
     * {@code old}/{@code new}: the Lease's spec.strategy before the write (UPDATE, DELETE) and after it (CREATE,
     * UPDATE); {@code -} none. Issue 39: an UPDATE must find the strategy on the stored Lease too, and in its own
     * namespace the operator writes only its own Leases by name (a shared namespace such as openshift-operators
     * holds other operators' leader Leases).
     */
    @ParameterizedTest(name = "{0} {1} Lease {2}/{3} (strategy {4} -> {5}): {6}")
    @CsvSource(delimiter = '|', nullValues = "-", textBlock = """
            OPERATOR           | CREATE | kube-node-lease     | worker-1        | -        | -        | denied
            OPERATOR           | UPDATE | kube-node-lease     | worker-1        | MA       | MA       | denied
            OPERATOR           | UPDATE | kube-system         | kcm             | OEV      | OEV      | denied
            OPERATOR           | CREATE | kube-system         | kcm             | -        | -        | denied
            OPERATOR_ELSEWHERE | UPDATE | kube-node-lease     | worker-1        | -        | -        | denied
            OPERATOR           | CREATE | apps                | app             | -        | MA       | allowed
            OPERATOR           | UPDATE | apps                | app             | OEV      | OEV      | allowed
            OPERATOR           | UPDATE | apps                | app             | -        | -        | denied
            OPERATOR           | UPDATE | apps                | app             | -        | MA       | denied
            OPERATOR           | UPDATE | apps                | app             | -        | OEV      | denied
            OPERATOR           | UPDATE | apps                | app             | MA       | -        | denied
            OPERATOR           | DELETE | apps                | app             | MA       | -        | denied
            OPERATOR           | CREATE | tenure-system       | tenure-operator | -        | -        | allowed
            OPERATOR           | UPDATE | tenure-system       | tenure-operator | -        | -        | allowed
            OPERATOR           | CREATE | tenure-system       | node-worker-1   | -        | -        | allowed
            OPERATOR           | UPDATE | tenure-system       | node-worker-1   | -        | -        | allowed
            OPERATOR           | UPDATE | tenure-system       | other-leader    | -        | -        | denied
            OPERATOR           | UPDATE | tenure-system       | other-leader    | -        | MA       | denied
            OPERATOR           | UPDATE | apps                | tenure-operator | -        | -        | denied
            OPERATOR           | UPDATE | apps                | node-worker-1   | -        | -        | denied
            OPERATOR_ELSEWHERE | UPDATE | openshift-operators | tenure-operator | -        | -        | allowed
            OPERATOR_ELSEWHERE | UPDATE | openshift-operators | node-worker-1   | -        | -        | allowed
            OPERATOR_ELSEWHERE | UPDATE | openshift-operators | 5a3f2b.acme.io  | -        | -        | denied
            OPERATOR_ELSEWHERE | CREATE | openshift-operators | 5a3f2b.acme.io  | -        | -        | denied
            OPERATOR_ELSEWHERE | UPDATE | openshift-operators | 5a3f2b.acme.io  | -        | MA       | denied
            OPERATOR_ELSEWHERE | UPDATE | openshift-operators | cle-managed     | OEV      | OEV      | allowed
            OPERATOR_ELSEWHERE | UPDATE | tenure-system       | tenure-operator | -        | -        | denied
            system:node:worker-1                                | UPDATE | kube-node-lease | worker-1 | - | - | not matched
            system:serviceaccount:kube-system:tenure-operator-x | UPDATE | kube-system     | kcm      | - | - | not matched
            system:kube-controller-manager                      | UPDATE | kube-system     | kcm      | - | - | not matched
            """)
    void operatorWritesOnlyItsOwnLeasesByNameAndCoordinatedOnesOutsideTheNodeAndControlPlaneNamespaces(
            String user,
            String operation,
            String namespace,
            String name,
            String oldStrategy,
            String newStrategy,
            String expected)
            throws IOException {
        Map<String, Object> before = operation.equals("CREATE") ? null : lease(namespace, name, oldStrategy);
        Map<String, Object> after = operation.equals("DELETE") ? null : lease(namespace, name, newStrategy);
        assertThat(admit(policy(), request(user, operation, "leases", namespace, name), after, before))
                .isEqualTo(expected);
    }

    /**
     * LeaseCandidates (issue 39): the controller only pings (a merge patch of spec.pingTime) and deletes expired
     * ones; every other write of the operator's identity is refused, and none in kube-system or kube-node-lease.
     */
    @ParameterizedTest(name = "{0} {1} LeaseCandidate in {2}, {3}: {4}")
    @CsvSource(delimiter = '|', textBlock = """
            OPERATOR           | UPDATE | apps                | ping                    | allowed
            OPERATOR           | DELETE | apps                | ping                    | allowed
            OPERATOR_ELSEWHERE | DELETE | openshift-operators | ping                    | allowed
            OPERATOR           | UPDATE | apps                | leaseName changed       | denied
            OPERATOR           | UPDATE | apps                | strategy changed        | denied
            OPERATOR           | UPDATE | apps                | binaryVersion added     | denied
            OPERATOR           | UPDATE | apps                | emulationVersion removed | denied
            OPERATOR           | CREATE | apps                | ping                    | denied
            OPERATOR           | UPDATE | kube-system         | ping                    | denied
            OPERATOR           | DELETE | kube-system         | ping                    | denied
            OPERATOR           | DELETE | kube-node-lease     | ping                    | denied
            system:serviceaccount:kube-system:generic-garbage-collector | DELETE | kube-system | ping | not matched
            """)
    void operatorOnlyPingsAndDeletesLeaseCandidatesOutsideTheNodeAndControlPlaneNamespaces(
            String user, String operation, String namespace, String change, String expected) throws IOException {
        Map<String, Object> spec = new HashMap<>(Map.of(
                "leaseName", "app",
                "strategy", "OldestEmulationVersion",
                "emulationVersion", "1.33.0",
                "renewTime", "2026-11-24T00:00:00.000000Z"));
        Map<String, Object> changed = new HashMap<>(spec);
        changed.put("pingTime", "2026-11-24T00:01:00.000000Z");
        switch (change) {
            case "leaseName changed" -> changed.put("leaseName", "kube-scheduler");
            case "strategy changed" -> changed.put("strategy", "tenure.dev/MaintenanceAware");
            case "binaryVersion added" -> changed.put("binaryVersion", "9.9.9");
            case "emulationVersion removed" -> changed.remove("emulationVersion");
            default -> {}
        }
        Map<String, Object> before =
                operation.equals("CREATE") ? null : Map.of("metadata", Map.of("name", "c"), "spec", spec);
        Map<String, Object> after =
                operation.equals("DELETE") ? null : Map.of("metadata", Map.of("name", "c"), "spec", changed);
        assertThat(admit(policy(), request(user, operation, "leasecandidates", namespace, "c"), after, before))
                .isEqualTo(expected);
    }

    private static Map<String, Object> lease(String namespace, String name, String strategy) {
        Map<String, Object> spec = new HashMap<>(Map.of("holderIdentity", "x"));
        if (strategy != null) {
            spec.put("strategy", strategy.equals("MA") ? "tenure.dev/MaintenanceAware" : "OldestEmulationVersion");
        }
        return Map.of("metadata", Map.of("name", name, "namespace", namespace), "spec", spec);
    }

    private static Map<String, Object> request(
            String user, String operation, String resource, String namespace, String name) {
        String username = switch (user) {
            case "OPERATOR" -> OPERATOR;
            case "OPERATOR_ELSEWHERE" -> OPERATOR_ELSEWHERE;
            default -> user;
        };
        return Map.of(
                "operation",
                operation,
                "namespace",
                namespace,
                "name",
                name,
                "resource",
                Map.of("group", "coordination.k8s.io", "version", "v1", "resource", resource),
                "userInfo",
                Map.of("username", username, "groups", List.of("system:serviceaccounts")));
    }

    @ParameterizedTest
    @CsvSource({"deploy/lease-guard.yaml", "deploy/tenure-operator.yaml"})
    void policyAndItsDenyingBindingShipInTheDeployFiles(String file) throws IOException {
        List<Map<String, Object>> docs = ManifestAssembly.parseAll(Files.readString(Path.of(file)));
        Map<String, Object> binding = docs.stream()
                .filter(d -> "ValidatingAdmissionPolicyBinding".equals(d.get("kind")))
                .findFirst()
                .orElseThrow();
        assertThat((Object) at(binding, "spec", "policyName")).isEqualTo("tenure-operator-lease-guard");
        assertThat(ManifestAssembly.<List<Object>>at(binding, "spec", "validationActions"))
                .containsExactly("Deny");
        assertThat(docs).anySatisfy(d -> assertThat(d).isEqualTo(policy()));
    }

    static Map<String, Object> policy() throws IOException {
        return ManifestAssembly.parseAll(Files.readString(Path.of("deploy", ManifestAssembly.LEASE_GUARD_FILE)))
                .stream()
                .filter(d -> "ValidatingAdmissionPolicy".equals(d.get("kind")))
                .findFirst()
                .orElseThrow();
    }

    /**
     * kube-apiserver's order: all matchConditions true, else not matched; then the variables, in order (each may
     * use the ones before it); then every validation must hold. {@code object} is null on DELETE, {@code oldObject}
     * on CREATE, as the API server gives them.
     */
    static String admit(
            Map<String, Object> policy,
            Map<String, Object> request,
            Map<String, Object> object,
            Map<String, Object> oldObject) {
        Map<String, Object> variables = new HashMap<>();
        variables.put("request", request);
        variables.put("object", object == null ? NullValue.NULL_VALUE : object);
        variables.put("oldObject", oldObject == null ? NullValue.NULL_VALUE : oldObject);
        Map<String, Object> declared = new HashMap<>();
        variables.put("variables", declared);
        List<Map<String, Object>> conditions = at(policy, "spec", "matchConditions");
        for (Map<String, Object> condition : conditions) {
            if (!(Boolean) eval(String.valueOf(condition.get("expression")), variables)) {
                return "not matched";
            }
        }
        for (Map<String, Object> variable : Objects.requireNonNullElse(
                ManifestAssembly.<List<Map<String, Object>>>at(policy, "spec", "variables"),
                List.<Map<String, Object>>of())) {
            declared.put(
                    String.valueOf(variable.get("name")), eval(String.valueOf(variable.get("expression")), variables));
        }
        List<String> failed = new ArrayList<>();
        for (Map<String, Object> validation :
                ManifestAssembly.<List<Map<String, Object>>>at(policy, "spec", "validations")) {
            if (!(Boolean) eval(String.valueOf(validation.get("expression")), variables)) {
                failed.add(String.valueOf(validation.get("message")));
            }
        }
        return failed.isEmpty() ? "allowed" : "denied";
    }

    /** The policy's few expressions, compiled once for every case (a compile costs more than an evaluation). */
    private static final Map<String, CelRuntime.Program> PROGRAMS = new ConcurrentHashMap<>();

    static CelRuntime.Program program(String expression) throws CelValidationException, CelEvaluationException {
        CelRuntime.Program program = PROGRAMS.get(expression);
        if (program == null) {
            program = RUNTIME.createProgram(COMPILER.compile(expression).getAst());
            PROGRAMS.put(expression, program);
        }
        return program;
    }

    static Object eval(String expression, Map<String, Object> variables) {
        try {
            return program(expression).eval(variables);
        } catch (Exception e) {
            throw new IllegalStateException("CEL " + expression + ": " + e.getMessage(), e);
        }
    }
}
