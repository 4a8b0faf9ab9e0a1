package dev.tenure.maintenance.door;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.testsupport.EndToEnd;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Issue 36: the door decides once. One reconcile of each kind, followed from {@code reconcile} (or {@code cleanup})
 * through the files it enters ({@link CallPath}: observe, decide, act, no ping-pong between the door, the admission
 * rules and the status mapping), enters no file more than twice.
 */
@EndToEnd
class ReconcilePathIT {

    @Test
    @SuppressWarnings("unchecked")
    void oneReconcileEntersEachFileAtMostTwice() throws Exception {
        Map<String, List<String>> paths;
        ClassLoader loader = new CallPath.Loader(getClass().getClassLoader());
        Object scenarios = loader.loadClass(ReconcilePaths.class.getName())
                .getConstructor()
                .newInstance();
        try (AutoCloseable closing = (AutoCloseable) scenarios) {
            paths = ((Supplier<Map<String, List<String>>>) scenarios).get();
        }
        paths.forEach((kind, path) ->
                System.out.println(kind + " (" + path.size() + " visits): " + String.join(" → ", path)));

        assertThat(paths)
                .hasSize(16)
                .allSatisfy(
                        (kind, path) -> assertThat(path).as(kind).startsWith("door/NodeMaintenanceReconciler.java"));
        assertThat(paths)
                .allSatisfy((kind, path) -> assertThat(visits(path))
                        .as("%s: %s", kind, String.join(" → ", path))
                        .allSatisfy((file, count) -> assertThat(count).as(file).isLessThanOrEqualTo(2)));
    }

    private static Map<String, Long> visits(List<String> path) {
        return path.stream().collect(Collectors.groupingBy(Function.identity(), TreeMap::new, Collectors.counting()));
    }
}
