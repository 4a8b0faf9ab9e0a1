package dev.tenure.testsupport;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Deque;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.TestSource;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;

/**
 * Publishes which test runs on each lane, so a request an emulated cluster receives names the test that made it
 * (registered through META-INF/services; read by {@link OperatorRequestRecorder} for the RBAC check).
 *
 * <p>The lane rule. The suite's JVM runs tests on up to two lanes at once (JUnit's parallel execution, {@link
 * SecondLane}): a lane is the thread JUnit runs a test on ({@code executionStarted} is called on it). A thread a
 * test starts works for its lane: it inherits the lane when it is created (an {@link InheritableThreadLocal}), as
 * the pool threads of {@code OperatorChaosIT}'s kill trials and Quarkus's test-resource executor do. An emulated
 * cluster belongs to the lane of the thread that started it ({@link #currentLane()}, read once), and each request it
 * receives is charged to what runs on that lane when it arrives ({@link #runningTest(String)}): the method, the
 * class while its setup or teardown runs, and between classes the class that ran there last (a shared
 * {@code @QuarkusTest} cluster's requests after its class ended). Never to what runs on the other lane. A cluster
 * started on a thread that works for no lane (outside a test run: the benchmark, {@code make run}) charges "(no
 * test)". Until issue 48's second lane this was one JVM-wide system property, which charged a request to whichever
 * lane started a test last.
 *
 * <p>One copy holds the lanes: the one in the class loader of JUnit's {@link TestExecutionListener}, which loaded
 * this listener. {@code @QuarkusTest} classes and the emulated clusters they start are loaded again by Quarkus's
 * class loader, which leaves JUnit's classes to its parent; a copy there calls that one by reflection, and only
 * strings cross.
 */
public final class RunningTestListener implements TestExecutionListener {
    static final String NO_TEST = "(no test)";

    /** The lane a thread works for: its own key once a test started on it, else the one it inherited. */
    private static final InheritableThreadLocal<String> LANE = new InheritableThreadLocal<>();
    /** Per lane: what runs there now, innermost last (the class, then its method). */
    private static final Map<String, Deque<String>> RUNNING = new ConcurrentHashMap<>();
    /** Per lane: the class that ended there last, charged until the next one starts. */
    private static final Map<String, String> LAST = new ConcurrentHashMap<>();

    /** The copy that holds the lanes, when this is another: its {@link #currentLane()}; null in that copy. */
    private static final Method HOME_LANE = home("currentLane");
    /** The copy that holds the lanes, when this is another: its {@link #runningTest(String)}; null in that copy. */
    private static final Method HOME_TEST = home("runningTest", String.class);

    /**
     * The lane the calling thread works for (its key), or "" when it works for none. Read where a cluster starts:
     * the value stays that lane's for the cluster's life.
     */
    public static String currentLane() {
        if (HOME_LANE != null) {
            return (String) call(HOME_LANE);
        }
        String lane = LANE.get();
        return lane == null ? "" : lane;
    }

    /**
     * What runs on {@code lane} now: {@code Class#method}, the class while its setup or teardown runs, the class that
     * ran there last between classes, or "(no test)" when nothing ran there (or {@code lane} is "").
     */
    public static String runningTest(String lane) {
        if (HOME_TEST != null) {
            return (String) call(HOME_TEST, lane);
        }
        if (lane.isEmpty()) {
            return NO_TEST;
        }
        Deque<String> running = RUNNING.get(lane);
        String now = running == null ? null : running.peekLast();
        return now != null ? now : LAST.getOrDefault(lane, NO_TEST);
    }

    @Override
    public void executionStarted(TestIdentifier test) {
        String name = name(test);
        if (name != null) {
            String lane = laneOfThisThread();
            LANE.set(lane);
            RUNNING.computeIfAbsent(lane, l -> new ConcurrentLinkedDeque<>()).addLast(name);
        }
    }

    @Override
    public void executionFinished(TestIdentifier test, TestExecutionResult result) {
        String name = name(test);
        String lane = laneOfThisThread();
        Deque<String> running = RUNNING.get(lane);
        if (name != null && running != null) {
            running.removeLastOccurrence(name);
            if (running.isEmpty()) {
                LAST.put(lane, name);
            }
        }
    }

    /** The key of the lane the calling thread is: its id (its name may repeat or change). */
    private static String laneOfThisThread() {
        return "thread " + Thread.currentThread().getId();
    }

    /** {@code Class#method} for a method, the class for a class, null for what is neither (the engine). */
    private static String name(TestIdentifier test) {
        TestSource source = test.getSource().orElse(null);
        if (source instanceof MethodSource m) {
            return simpleName(m.getClassName()) + "#" + m.getMethodName();
        }
        if (source instanceof ClassSource c) {
            return simpleName(c.getClassName());
        }
        return null;
    }

    private static String simpleName(String className) {
        return className.substring(className.lastIndexOf('.') + 1);
    }

    /** Null when this copy holds the lanes (JUnit's loader loaded it, or cannot see it); else the holder's method. */
    private static Method home(String method, Class<?>... parameters) {
        Class<?> home;
        try {
            home = Class.forName(
                    RunningTestListener.class.getName(), false, TestExecutionListener.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            return null;
        }
        if (home == RunningTestListener.class) {
            return null;
        }
        try {
            return home.getMethod(method, parameters);
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException("the lanes' copy of " + home.getName() + " lacks " + method, e);
        }
    }

    private static Object call(Method method, Object... args) {
        try {
            return method.invoke(null, args);
        } catch (IllegalAccessException | InvocationTargetException e) {
            throw new IllegalStateException("cannot ask the lanes' copy of RunningTestListener: " + e, e);
        }
    }
}
