package dev.tenure.operator;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.runtime.annotations.RegisterForReflection;
import java.io.IOException;
import java.lang.annotation.Annotation;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A native image keeps reflection data only for registered classes. The CRD model (every type reachable
 * from a {@link ManifestAssembly#CUSTOM_RESOURCES} class through its fields) is registered by
 * quarkus-operator-sdk; any other type Jackson binds (it carries Jackson annotations, or it is a record
 * kept beside its own ObjectMapper) must say {@code @RegisterForReflection}, or in native mode its
 * (de)serialisation fails at run time, silently where the caller falls back.
 */
class JacksonReflectionTest {

    @Test
    void everyJacksonBoundTypeOutsideTheCrdModelIsRegisteredForReflection() throws Exception {
        Set<Class<?>> crdModel = crdModel();
        List<Class<?>> bound = applicationClasses().stream()
                .filter(JacksonReflectionTest::jacksonBound)
                .toList();
        assertThat(bound)
                .as("the scan finds the CRD model's Jackson-annotated types")
                .isNotEmpty()
                .anyMatch(crdModel::contains);
        assertThat(bound.stream().filter(c -> !crdModel.contains(c)))
                .as("Jackson-bound types outside the CRD model")
                .isNotEmpty()
                .allSatisfy(c -> assertThat(c.isAnnotationPresent(RegisterForReflection.class))
                        .as(c.getName() + " is (de)serialised by Jackson outside the CRD model: @RegisterForReflection")
                        .isTrue());
    }

    static boolean jacksonBound(Class<?> type) {
        if (hasJacksonAnnotation(type.getAnnotations())) {
            return true;
        }
        for (Field field : type.getDeclaredFields()) {
            if (hasJacksonAnnotation(field.getAnnotations())) {
                return true;
            }
        }
        if (type.isRecord()) {
            for (RecordComponent component : type.getRecordComponents()) {
                if (hasJacksonAnnotation(component.getAnnotations())) {
                    return true;
                }
            }
            // A record beside its own mapper is what that mapper reads.
            return Stream.of(type.getDeclaredFields())
                    .anyMatch(f ->
                            Modifier.isStatic(f.getModifiers()) && ObjectMapper.class.isAssignableFrom(f.getType()));
        }
        return false;
    }

    private static boolean hasJacksonAnnotation(Annotation[] annotations) {
        return Stream.of(annotations)
                .anyMatch(a -> a.annotationType().getPackageName().startsWith("com.fasterxml.jackson.annotation"));
    }

    /** Every type reachable from the custom resource classes through declared field types and type arguments. */
    static Set<Class<?>> crdModel() {
        Set<Class<?>> seen = new HashSet<>();
        Deque<Class<?>> todo = new ArrayDeque<>(ManifestAssembly.CUSTOM_RESOURCES);
        while (!todo.isEmpty()) {
            Class<?> type = todo.pop();
            if (!type.getName().startsWith("dev.tenure.") || !seen.add(type)) {
                continue;
            }
            for (Class<?> c = type; c != null && c.getName().startsWith("dev.tenure."); c = c.getSuperclass()) {
                for (Field field : c.getDeclaredFields()) {
                    addTypes(field.getGenericType(), todo);
                }
            }
            if (type.getGenericSuperclass() != null) {
                addTypes(type.getGenericSuperclass(), todo);
            }
        }
        return seen;
    }

    private static void addTypes(Type type, Deque<Class<?>> todo) {
        if (type instanceof Class<?> c) {
            todo.push(c.isArray() ? c.getComponentType() : c);
        } else if (type instanceof ParameterizedType p) {
            addTypes(p.getRawType(), todo);
            for (Type argument : p.getActualTypeArguments()) {
                addTypes(argument, todo);
            }
        }
    }

    private static List<Class<?>> applicationClasses() throws IOException {
        Path classes = Path.of("target", "classes");
        try (Stream<Path> files = Files.walk(classes)) {
            return files.filter(f -> f.toString().endsWith(".class"))
                    .map(f -> classes.relativize(f).toString().replace('/', '.').replaceAll("\\.class$", ""))
                    .filter(n -> n.startsWith("dev.tenure."))
                    .map(JacksonReflectionTest::load)
                    .toList();
        }
    }

    private static Class<?> load(String name) {
        try {
            return Class.forName(name, false, JacksonReflectionTest.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            throw new IllegalStateException("cannot load " + name, e);
        }
    }
}
