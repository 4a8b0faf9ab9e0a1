package dev.tenure.election;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.testsupport.SecondLane;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The fence and stop-before-release on real threads and real time (issue 13), with the timings of the
 * issue's reproduction: 3 s lease, 2 s renew deadline, 0.5 s retry, and API calls that take 6 s.
 */
@SecondLane
class LeaderElectorFenceTest {
    static final LeaseKey LEASE = LeaseKey.of("tenure-system", "fence");
    static final Duration LD = Duration.ofSeconds(3);
    static final Duration RD = Duration.ofSeconds(2);
    static final Duration RP = Duration.ofMillis(500);

    final InMemoryLeaseStore store = new InMemoryLeaseStore();
    final List<AutoCloseable> closing = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : closing) {
            c.close();
        }
    }

    LeaderElector.Builder elector(String identity, Runnable onStopped) {
        ExecutorScheduler loop = new ExecutorScheduler("loop-" + identity);
        ExecutorScheduler fence = new ExecutorScheduler("fence-" + identity);
        ExecutorService callbacks = Executors.newSingleThreadExecutor();
        closing.add(loop);
        closing.add(fence);
        closing.add(callbacks::shutdownNow);
        return LeaderElector.builder()
                .lease(LEASE)
                .identity(identity)
                .leaseDuration(LD)
                .renewDeadline(RD)
                .retryPeriod(RP)
                .store(store)
                .scheduler(loop)
                .fenceScheduler(fence)
                .clock(Clock.systemUTC())
                .monotonic(MonotonicClock.system())
                .random(new Random(1))
                .callbackExecutor(callbacks)
                .onStoppedLeading(onStopped);
    }

    @Test
    void aLeaderStuckInASlowCallIsFencedAtItsRenewDeadlineNotWhenTheCallReturns() {
        AtomicLong stoppedAt = new AtomicLong();
        // store calls on the loop thread (the fence and callbacks keep their own threads): the loop really blocks
        // for the whole call, only the fence can help
        LeaderElector a = elector("a", () -> stoppedAt.compareAndSet(0, System.nanoTime()))
                .unsafeAllOnLoopSchedulerForTests()
                .build();
        a.start();
        await().atMost(Duration.ofSeconds(5)).until(a::isLeader);
        AtomicLong stallStart = new AtomicLong();
        store.intercept(new InMemoryLeaseStore.Interceptor() {
            @Override
            public void after(InMemoryLeaseStore.Op op, LeaseKey key) {
                if (op == InMemoryLeaseStore.Op.UPDATE && stallStart.compareAndSet(0, System.nanoTime())) {
                    sleep(Duration.ofSeconds(6)); // the renew landed, its answer takes 6 s
                }
            }
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> stoppedAt.get() != 0);
        // the last renew that succeeded started before the stalled one, so the fence is at most RD after it
        long fencedAfterMs = TimeUnit.NANOSECONDS.toMillis(stoppedAt.get() - stallStart.get());
        assertThat(fencedAfterMs)
                .as("onStoppedLeading ran %d ms after the stalled renew began", fencedAfterMs)
                .isLessThanOrEqualTo(RD.toMillis() + 500);
        assertThat(a.isLeader()).isFalse();
    }

    @Test
    void aYieldWritesTheReleaseOnlyAfterTheStopCallbackHasReturned() {
        AtomicLong stopReturned = new AtomicLong();
        LeaderElector a = elector("a", () -> {
                    sleep(Duration.ofMillis(800)); // e.g. JOSDK finishing an in-flight reconcile
                    stopReturned.set(System.nanoTime());
                })
                .build();
        a.start();
        await().atMost(Duration.ofSeconds(5)).until(a::isLeader);
        AtomicLong releasedAt = new AtomicLong();
        store.intercept(new InMemoryLeaseStore.Interceptor() {
            @Override
            public void after(InMemoryLeaseStore.Op op, LeaseKey key) {
                if (op == InMemoryLeaseStore.Op.UPDATE
                        && !store.peek(LEASE).orElseThrow().hasHolder()) {
                    releasedAt.compareAndSet(0, System.nanoTime());
                }
            }
        });
        LeaseRecord held = store.peek(LEASE).orElseThrow();
        store.update(LEASE, held.withPreferredHolder("b"));
        await().atMost(Duration.ofSeconds(5)).until(() -> releasedAt.get() != 0);
        assertThat(stopReturned.get()).as("stop callback returned").isPositive();
        assertThat(releasedAt.get())
                .as("release written after the stop callback returned")
                .isGreaterThanOrEqualTo(stopReturned.get());
        assertThat(store.peek(LEASE).orElseThrow().preferredHolder()).isEqualTo("b");
    }

    @Test
    void aStopCallbackThatDoesNotReturnLeavesTheLeaseToExpireInsteadOfReleasingIt() {
        LeaderElector a = elector("a", () -> sleep(LD.plusSeconds(2))).build();
        a.start();
        await().atMost(Duration.ofSeconds(5)).until(a::isLeader);
        long before = System.nanoTime();
        a.stop();
        assertThat(Duration.ofNanos(System.nanoTime() - before))
                .as("stop waited for the callback, bounded by leaseDuration")
                .isBetween(LD.minusMillis(100), LD.plusSeconds(1));
        assertThat(store.peek(LEASE).orElseThrow().holderIdentity())
                .as("not released: it expires by itself")
                .isEqualTo("a");
    }

    static void sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
