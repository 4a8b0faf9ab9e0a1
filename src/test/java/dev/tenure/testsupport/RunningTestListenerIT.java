package dev.tenure.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.UniqueId;
import org.junit.platform.engine.support.descriptor.AbstractTestDescriptor;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.TestIdentifier;

/**
 * The RBAC check's attribution with two lanes (issue 48): each emulated cluster's requests are charged to the test
 * running on the lane that started it, while a test runs on the other lane too. Two threads play the two lanes, each
 * a "test" started through the listener as JUnit starts one, then its own cluster; the operator's request to each
 * cluster comes once both run. One JVM-wide "running test" charged both to whichever started last.
 */
@EndToEnd
class RunningTestListenerIT {

    @Test
    void eachClustersRequestIsChargedToTheTestOnTheLaneThatStartedIt() throws Exception {
        String dir = System.getProperty(OperatorRequestRecorder.DIRECTORY_PROPERTY, "");
        assumeFalse(
                dir.isBlank(),
                "the build records requests (pom.xml sets " + OperatorRequestRecorder.DIRECTORY_PROPERTY + ")");
        RunningTestListener listener = new RunningTestListener();
        CyclicBarrier bothRunning = new CyclicBarrier(2);
        ExecutorService lanes = Executors.newFixedThreadPool(2);
        try {
            CompletableFuture<List<String>> first = CompletableFuture.supplyAsync(
                    () -> lane(listener, "FirstLaneTest", "first", bothRunning, Path.of(dir)), lanes);
            CompletableFuture<List<String>> second = CompletableFuture.supplyAsync(
                    () -> lane(listener, "SecondLaneTest", "second", bothRunning, Path.of(dir)), lanes);
            assertThat(first.get(60, TimeUnit.SECONDS))
                    .as("the tests charged with the request to the first lane's cluster")
                    .containsExactly("FirstLaneTest#first");
            assertThat(second.get(60, TimeUnit.SECONDS))
                    .as("the tests charged with the request to the second lane's cluster")
                    .containsExactly("SecondLaneTest#second");
        } finally {
            lanes.shutdownNow();
        }
    }

    /**
     * Runs one "test" on the calling thread: starts it, starts a cluster, waits until the other lane's test runs too,
     * makes one operator request (a get of a node no other test names) and returns the tests its recording charges.
     */
    private static List<String> lane(
            RunningTestListener listener, String testClass, String method, CyclicBarrier bothRunning, Path dir) {
        TestIdentifier test = TestIdentifier.from(
                new AbstractTestDescriptor(
                        UniqueId.forEngine("lanes").append("method", testClass + "#" + method),
                        method,
                        MethodSource.from("dev.tenure.example." + testClass, method)) {
                    @Override
                    public Type getType() {
                        return Type.TEST;
                    }
                });
        listener.executionStarted(test);
        try (EmulatedCluster cluster = EmulatedCluster.start()) {
            bothRunning.await(30, TimeUnit.SECONDS);
            String node = "lane-" + UUID.randomUUID();
            cluster.operatorClient().nodes().withName(node).get();
            return recorded(dir, URI.create(cluster.url()).getPort(), node);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        } finally {
            listener.executionFinished(test, TestExecutionResult.successful());
        }
    }

    /** The tests charged with a get of {@code node} in the recordings of this JVM's clusters on {@code port}. */
    private static List<String> recorded(Path dir, int port, String node) throws IOException {
        String prefix = "cluster-" + ProcessHandle.current().pid() + "-" + port + "-";
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.getFileName().toString().startsWith(prefix))
                    .flatMap(f -> {
                        try {
                            return Files.readAllLines(f).stream();
                        } catch (IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                    })
                    .map(RecordedOperatorRequest::parse)
                    .filter(r -> r.verb().equals("get") && r.name().equals(node))
                    .map(RecordedOperatorRequest::test)
                    .toList();
        }
    }
}
