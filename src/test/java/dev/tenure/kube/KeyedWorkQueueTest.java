package dev.tenure.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class KeyedWorkQueueTest {

    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    private final KeyedWorkQueue<String> queue =
            new KeyedWorkQueue<>("test", scheduler, Duration.ofMillis(50), Duration.ofSeconds(30));

    @AfterEach
    void shutDown() {
        queue.shutDown();
        scheduler.shutdownNow();
    }

    @Test
    void backoffDoublesPerFailureUpToTheCapAndResetsOnForget() {
        List<Duration> waits = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            waits.add(queue.backoff("k"));
        }
        assertThat(waits.subList(0, 4))
                .containsExactly(
                        Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(200), Duration.ofMillis(400));
        assertThat(waits.get(11)).isEqualTo(Duration.ofSeconds(30));
        queue.forget("k");
        assertThat(queue.backoff("k")).isEqualTo(Duration.ofMillis(50));
    }

    /**
     * A worker whose key asks to be looked at again after its scheduler was shut down (the owner stopping, the
     * scheduler first) goes on working: the re-add is dropped, not thrown. It threw RejectedExecutionException and the
     * worker thread died of it, uncaught (CI: it failed DrainPreviewIT's await, which catches any thread's uncaught
     * exception).
     */
    @Test
    void aReAddAfterTheSchedulerIsShutDownIsDroppedAndTheWorkerGoesOn() throws Exception {
        scheduler.shutdownNow();
        List<String> handled = Collections.synchronizedList(new ArrayList<>());
        List<Throwable> uncaught = Collections.synchronizedList(new ArrayList<>());
        Thread worker = new Thread(() -> queue.run(key -> {
            handled.add(key);
            return Optional.of(Duration.ofSeconds(1));
        }));
        worker.setUncaughtExceptionHandler((t, e) -> uncaught.add(e));
        worker.start();

        queue.add("a");
        await().atMost(Duration.ofSeconds(5)).until(() -> handled.contains("a"));
        queue.add("b");
        await().atMost(Duration.ofSeconds(5)).until(() -> handled.contains("b") || !worker.isAlive());

        assertThat(uncaught).isEmpty();
        assertThat(handled).containsExactly("a", "b");
        assertThat(worker.isAlive()).isTrue();
        queue.shutDown();
        worker.join(5_000);
    }

    @Test
    void aKeyAddedWhileProcessedRunsAgainAfterwardsButNeverConcurrently() throws Exception {
        CountDownLatch inFirstRun = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger runs = new AtomicInteger();
        AtomicInteger concurrent = new AtomicInteger();
        List<Integer> maxConcurrent = Collections.synchronizedList(new ArrayList<>());
        Thread[] workers = new Thread[2];
        for (int i = 0; i < workers.length; i++) {
            workers[i] = new Thread(() -> queue.run(key -> {
                maxConcurrent.add(concurrent.incrementAndGet());
                if (runs.incrementAndGet() == 1) {
                    inFirstRun.countDown();
                    try {
                        release.await(10, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                concurrent.decrementAndGet();
                return Optional.empty();
            }));
            workers[i].start();
        }
        queue.add("k");
        assertThat(inFirstRun.await(10, TimeUnit.SECONDS)).isTrue();
        queue.add("k");
        queue.add("k"); // deduplicated with the previous add
        release.countDown();
        await().atMost(Duration.ofSeconds(10)).until(() -> runs.get() == 2);
        queue.shutDown();
        for (Thread w : workers) {
            w.join(5000);
        }
        assertThat(runs.get()).isEqualTo(2);
        assertThat(maxConcurrent).allMatch(n -> n == 1);
    }

    @Test
    void failingKeyIsRetried() {
        AtomicInteger runs = new AtomicInteger();
        Thread worker = new Thread(() -> queue.run(key -> {
            if (runs.incrementAndGet() < 3) {
                throw new IllegalStateException("conflict");
            }
            return Optional.empty();
        }));
        worker.start();
        queue.add("k");
        await().atMost(Duration.ofSeconds(10)).until(() -> runs.get() == 3);
    }

    /**
     * The fence of a stopping door: shutDownAndWait reports a worker still busy at its deadline, and once that
     * key's work ends no worker takes another key, although keys were queued.
     */
    @Test
    void afterShutDownAndWaitNoWorkerStartsAnotherKey() throws Exception {
        CountDownLatch busy = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        List<String> started = Collections.synchronizedList(new ArrayList<>());
        queue.startWorkers(1, "test-worker", key -> {
            started.add(key);
            if (key.equals("slow")) {
                busy.countDown();
                try {
                    release.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return Optional.empty();
        });
        queue.add("slow");
        assertThat(busy.await(5, TimeUnit.SECONDS)).isTrue();
        queue.add("queued"); // waits behind the busy worker

        assertThat(queue.shutDownAndWait(Duration.ofMillis(200))).isFalse();
        release.countDown();
        assertThat(queue.shutDownAndWait(Duration.ofSeconds(5))).isTrue();
        assertThat(started).containsExactly("slow");
    }
}
