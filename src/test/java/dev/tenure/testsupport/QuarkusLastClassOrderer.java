package dev.tenure.testsupport;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.util.QuarkusTestProfileAwareClassOrderer;
import java.lang.annotation.Annotation;
import java.util.Comparator;
import org.junit.jupiter.api.ClassDescriptor;
import org.junit.jupiter.api.ClassOrderer;
import org.junit.jupiter.api.ClassOrdererContext;
import org.junit.jupiter.api.Nested;

/**
 * The suite's class order: Quarkus's own (the {@code @QuarkusTest} classes grouped by test profile, so each profile's
 * application starts once), then every class that starts no application moved ahead of them, in the order Quarkus gave.
 * Quarkus closes the last application only when JUnit's Jupiter engine ends (or a class of another profile needs one),
 * so with its classes first the default application, its informers, its leader election and the shared emulated
 * cluster ran idle beside every plain class after them (~0.16 of a core, docs/development.md "Where the CPU goes").
 * Last, the application ends with the engine, right after its last class.
 *
 * <p>Named by {@code quarkus.test.class-orderer} (pom.xml's surefire system properties): Quarkus's
 * {@code io.quarkus.test.config.QuarkusClassOrderer}, which quarkus-junit5-config makes JUnit's class orderer, reads
 * that setting and delegates to the class it names (its default is {@link QuarkusTestProfileAwareClassOrderer}, wrapped
 * here). Its {@code junit.quarkus.orderer.prefix.*} settings cannot do this in Quarkus 3.27: once the
 * {@code @QuarkusTest} classes are loaded by Quarkus's class loaders, it orders by class loader name, which puts the
 * application class loader's ("app") after every "Quarkus ..." one whatever the prefixes say.
 */
public final class QuarkusLastClassOrderer implements ClassOrderer {
    private static final String QUARKUS_TEST = QuarkusTest.class.getName();

    private final ClassOrderer quarkus = new QuarkusTestProfileAwareClassOrderer();

    @Override
    public void orderClasses(ClassOrdererContext context) {
        quarkus.orderClasses(context);
        if (context.getClassDescriptors().isEmpty()
                || context.getClassDescriptors().get(0).isAnnotated(Nested.class)) {
            return;
        }
        // List.sort is stable: each half keeps the order Quarkus gave it, its profile groups included
        context.getClassDescriptors().sort(Comparator.comparing(QuarkusLastClassOrderer::startsAnApplication));
    }

    /**
     * Whether the class is a {@code @QuarkusTest}, by the annotation's name: a class Quarkus loaded sees the annotation
     * type through its own class loader, so the type's identity may differ from this class's.
     */
    static boolean startsAnApplication(ClassDescriptor descriptor) {
        for (Annotation annotation : descriptor.getTestClass().getAnnotations()) {
            if (annotation.annotationType().getName().equals(QUARKUS_TEST)) {
                return true;
            }
        }
        return false;
    }
}
