package dev.tenure.testsupport;

import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.TestSource;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;

/**
 * Publishes which test is running, so a request the emulated cluster receives can name the test that made it
 * (registered through META-INF/services; tests run one at a time in each test JVM, surefire's forks being separate
 * JVMs). A system property, because {@code @QuarkusTest} classes and the emulated clusters they start live in other
 * class loaders than this listener.
 */
public final class RunningTestListener implements TestExecutionListener {
    static final String PROPERTY = "rbac-check.running-test";

    /** {@code Class#method}, the class while its setup or teardown runs, or "(no test)" outside the suite. */
    public static String runningTest() {
        return System.getProperty(PROPERTY, "(no test)");
    }

    @Override
    public void executionStarted(TestIdentifier test) {
        TestSource source = test.getSource().orElse(null);
        if (source instanceof MethodSource m) {
            System.setProperty(PROPERTY, simpleName(m.getClassName()) + "#" + m.getMethodName());
        } else if (source instanceof ClassSource c) {
            System.setProperty(PROPERTY, simpleName(c.getClassName()));
        }
    }

    @Override
    public void executionFinished(TestIdentifier test, TestExecutionResult result) {
        // After a method, the class's teardown runs: charge it to the class.
        if (test.getSource().orElse(null) instanceof MethodSource m) {
            System.setProperty(PROPERTY, simpleName(m.getClassName()));
        }
    }

    private static String simpleName(String className) {
        return className.substring(className.lastIndexOf('.') + 1);
    }
}
