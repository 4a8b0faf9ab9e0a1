package dev.tenure.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Appends each distinct request production code makes to one emulated cluster to
 * {@code <dir>/cluster-<pid>-<port>-<nanos>.tsv} (the pid: surefire's forks share the directory, and a port one fork
 * closed may be the next one another opens), one {@link RecordedOperatorRequest} per line, as it first arrives
 * (so nothing is lost if a test never closes its cluster). Enabled by the system property
 * {@value #DIRECTORY_PROPERTY}, which the build sets for the test run only (not for {@code make run} or the
 * benchmark). Harness and kubectl requests ({@link RequestOrigin}) are left out. Each request is charged to the test
 * running on the lane that started the cluster, whatever runs on the other lane ({@link RunningTestListener}).
 */
final class OperatorRequestRecorder {
    static final String DIRECTORY_PROPERTY = "rbac-check.requests-dir";

    private final Path file;
    /** The lane that started the cluster ({@link RunningTestListener#currentLane()}). */
    private final String lane;

    private final Set<RecordedOperatorRequest> seen = ConcurrentHashMap.newKeySet();

    private OperatorRequestRecorder(Path file, String lane) {
        this.file = file;
        this.lane = lane;
    }

    /**
     * A recorder for the cluster on {@code port}, when the build asked for one; called on the thread that starts the
     * cluster, whose lane its requests are charged to.
     */
    static Optional<OperatorRequestRecorder> forCluster(int port) {
        String dir = System.getProperty(DIRECTORY_PROPERTY, "");
        if (dir.isBlank()) {
            return Optional.empty();
        }
        try {
            Path directory = Files.createDirectories(Path.of(dir));
            return Optional.of(new OperatorRequestRecorder(
                    directory.resolve(
                            "cluster-" + ProcessHandle.current().pid() + "-" + port + "-" + System.nanoTime() + ".tsv"),
                    RunningTestListener.currentLane()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    void record(ApiRequest request) {
        if (RequestOrigin.of(request) != RequestOrigin.OPERATOR) {
            return;
        }
        RecordedOperatorRequest recorded = RecordedOperatorRequest.of(request, RunningTestListener.runningTest(lane));
        if (seen.add(recorded)) {
            append(recorded.toLine() + "\n");
        }
    }

    private synchronized void append(String line) {
        try {
            Files.writeString(file, line, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot record an operator request in " + file, e);
        }
    }
}
