package dev.tenure;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;

/**
 * The operator's main classes as ArchUnit sees them, imported once per test JVM for every architecture test
 * ({@code LayeringTest}, {@code WiringArchitectureTest}, {@code ElectionArchitectureTest},
 * {@code CoordinationArchitectureTest}, {@code MaintenanceRoomsTest}). An import reads every class file and resolves
 * what it refers to: seconds of CPU each time, the same classes each time. What they refer to outside
 * {@code dev.tenure} (Quarkus, fabric8, JOSDK...) is not read from the classpath
 * ({@code resolveMissingDependenciesFromClassPath=false}, src/test/resources/archunit.properties): every rule judges
 * dev.tenure's classes by the names of what they use, which the class files hold; reading the others took half the
 * import's CPU (about 9 of 19 s).
 */
public final class MainClasses {

    private MainClasses() {}

    /** Imported on first use: a run that has no architecture test in it pays nothing. */
    private static final class Holder {
        static final JavaClasses ALL = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.tenure");
    }

    /** Every main class under {@code dev.tenure}. */
    public static JavaClasses all() {
        return Holder.ALL;
    }

    /** The main classes of {@code pkg} and its subpackages: what {@code importPackages(pkg)} imports. */
    public static JavaClasses in(String pkg) {
        return all().that(resideInAPackage(pkg + ".."));
    }
}
