package dev.tenure.operator;

import static dev.tenure.operator.ManifestAssembly.at;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cel.common.CelValidationException;
import dev.cel.common.types.SimpleType;
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
import java.util.List;
import java.util.Map;
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
            .addLibraries(CelExtensions.strings())
            .build();
    private static final CelRuntime RUNTIME = CelRuntimeFactory.standardCelRuntimeBuilder()
            .addLibraries(CelExtensions.strings())
            .build();

    static final String OPERATOR = "system:serviceaccount:tenure-system:tenure-operator";
    static final String OPERATOR_ELSEWHERE = "system:serviceaccount:openshift-operators:tenure-operator";

    @ParameterizedTest(name = "{0} {1} Lease in {2} (strategy {3}): {4}")
    @CsvSource(delimiter = '|', nullValues = "-", textBlock = """
            OPERATOR                                 | CREATE | kube-node-lease     | -                                      | denied
            OPERATOR                                 | UPDATE | kube-node-lease     | tenure.dev/MaintenanceAware            | denied
            OPERATOR                                 | UPDATE | kube-system         | OldestEmulationVersion                 | denied
            OPERATOR                                 | CREATE | kube-system         | -                                      | denied
            OPERATOR_ELSEWHERE                       | UPDATE | kube-node-lease     | -                                      | denied
            OPERATOR                                 | CREATE | apps                | tenure.dev/MaintenanceAware            | allowed
            OPERATOR                                 | UPDATE | apps                | OldestEmulationVersion                 | allowed
            OPERATOR                                 | UPDATE | apps                | -                                      | denied
            OPERATOR                                 | CREATE | tenure-system       | -                                      | allowed
            OPERATOR_ELSEWHERE                       | UPDATE | openshift-operators | -                                      | allowed
            OPERATOR_ELSEWHERE                       | UPDATE | tenure-system       | -                                      | denied
            system:node:worker-1                     | UPDATE | kube-node-lease     | -                                      | not matched
            system:serviceaccount:kube-system:tenure-operator-x | UPDATE | kube-system | -                             | not matched
            system:kube-controller-manager           | UPDATE | kube-system         | -                                      | not matched
            """)
    void operatorIdentityWritesOnlyCoordinatedLeasesOutsideTheNodeAndControlPlaneNamespaces(
            String user, String operation, String namespace, String strategy, String expected) throws IOException {
        String username = switch (user) {
            case "OPERATOR" -> OPERATOR;
            case "OPERATOR_ELSEWHERE" -> OPERATOR_ELSEWHERE;
            default -> user;
        };
        Map<String, Object> spec =
                strategy == null ? Map.of("holderIdentity", "x") : Map.of("holderIdentity", "x", "strategy", strategy);
        Map<String, Object> lease = Map.of("metadata", Map.of("name", "l", "namespace", namespace), "spec", spec);
        Map<String, Object> request = Map.of(
                "operation",
                operation,
                "namespace",
                namespace,
                "userInfo",
                Map.of("username", username, "groups", List.of("system:serviceaccounts")));
        assertThat(admit(policy(), request, lease)).isEqualTo(expected);
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

    /** kube-apiserver's order: all matchConditions true, else not matched; then every validation must hold. */
    static String admit(Map<String, Object> policy, Map<String, Object> request, Map<String, Object> object) {
        Map<String, Object> variables = Map.of("request", request, "object", object, "oldObject", object);
        List<Map<String, Object>> conditions = at(policy, "spec", "matchConditions");
        for (Map<String, Object> condition : conditions) {
            if (!eval(String.valueOf(condition.get("expression")), variables)) {
                return "not matched";
            }
        }
        List<String> failed = new ArrayList<>();
        for (Map<String, Object> validation :
                ManifestAssembly.<List<Map<String, Object>>>at(policy, "spec", "validations")) {
            if (!eval(String.valueOf(validation.get("expression")), variables)) {
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

    static boolean eval(String expression, Map<String, Object> variables) {
        try {
            return (Boolean) program(expression).eval(variables);
        } catch (Exception e) {
            throw new IllegalStateException("CEL " + expression + ": " + e.getMessage(), e);
        }
    }
}
