package dev.tenure.operator;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import dev.tenure.maintenance.NodeMaintenance;
import io.quarkus.runtime.annotations.RegisterForReflection;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Native image: Jackson binds a type by reflection, which a native executable allows only for registered types.
 * The custom resource's model (NodeMaintenance and every Tenure type reachable from its fields) is registered by
 * quarkus-operator-sdk; any other Tenure type that carries Jackson annotations is bound by some ObjectMapper of
 * ours and must say {@code @RegisterForReflection} itself (issue 19: RecordedState was not, so the annotation
 * door would have restarted every maintenance on each reconcile in native mode).
 */
class NativeReflectionTest {

    @Test
    void everyJacksonBoundTypeOutsideTheCrdModelIsRegisteredForReflection() {
        JavaClasses main = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.tenure");
        Set<String> crdModel = reachableFromFields(main.get(NodeMaintenance.class));
        List<String> jacksonBound = main.stream()
                .filter(NativeReflectionTest::carriesJacksonAnnotations)
                .map(JavaClass::getName)
                .toList();
        assertThat(jacksonBound).as("the scan finds the Jackson-bound types").contains("dev.tenure.maintenance.NodeMaintenanceSpec",
                "dev.tenure.maintenance.annotation.RecordedState");
        List<String> unregistered = main.stream()
                .filter(NativeReflectionTest::carriesJacksonAnnotations)
                .filter(c -> !crdModel.contains(c.getName()))
                .filter(c -> !c.isAnnotatedWith(RegisterForReflection.class))
                .map(JavaClass::getName)
                .toList();
        assertThat(unregistered).as("Jackson-bound outside the CRD model, not registered for reflection").isEmpty();
    }

    private static boolean carriesJacksonAnnotations(JavaClass c) {
        boolean onClass = c.getAnnotations().stream().anyMatch(a -> isJackson(a.getRawType()));
        boolean onMembers = c.getMembers().stream()
                .anyMatch(m -> m.getAnnotations().stream().anyMatch(a -> isJackson(a.getRawType())));
        return onClass || onMembers;
    }

    private static boolean isJackson(JavaClass annotation) {
        return annotation.getPackageName().startsWith("com.fasterxml.jackson");
    }

    /** Tenure types reachable from {@code root} through its superclass's type arguments and field types. */
    private static Set<String> reachableFromFields(JavaClass root) {
        Set<String> seen = new HashSet<>();
        Deque<JavaClass> todo = new ArrayDeque<>(List.of(root));
        while (!todo.isEmpty()) {
            JavaClass c = todo.pop();
            if (!c.getPackageName().startsWith("dev.tenure") || !seen.add(c.getName())) {
                continue;
            }
            c.getAllRawSuperclasses().forEach(todo::push);
            // CustomResource<Spec, Status>: the model's own types are the superclass's type arguments
            c.getSuperclass().ifPresent(t -> t.getAllInvolvedRawTypes().forEach(todo::push));
            c.getFields().forEach(f -> f.getType().getAllInvolvedRawTypes().forEach(todo::push));
        }
        return seen;
    }
}
