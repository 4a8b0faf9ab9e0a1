package dev.tenure.election;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class WorkFenceTest {

    @Test
    void aClosedFenceAdmitsNoWorkAndNoWrite() {
        WorkFence fence = WorkFence.closed();
        assertThatThrownBy(fence::enter).isInstanceOf(WorkFence.OutsideTerm.class);
        assertThatThrownBy(fence::writeBudget)
                .isInstanceOf(WorkFence.OutsideTerm.class)
                .hasMessageContaining("no leadership term is open");
        assertThat(fence.isOpen()).isFalse();
    }

    @Test
    void aWriteGetsTheTimeLeftInTheTermAndNothingWhenTooLittleIsLeft() {
        AtomicReference<Optional<Duration>> left = new AtomicReference<>(Optional.of(Duration.ofMillis(1800)));
        WorkFence fence = WorkFence.closed();
        long term = fence.open(left::get);
        assertThat(term).isEqualTo(1);
        assertThat(fence.writeBudget()).isEqualTo(Duration.ofMillis(1800));
        left.set(Optional.of(Duration.ofMillis(20)));
        assertThatThrownBy(fence::writeBudget).hasMessageContaining("the term ends in 20 ms");
        left.set(Optional.empty()); // the elector's fence passed: over, though nobody closed it yet
        assertThatThrownBy(fence::writeBudget).isInstanceOf(WorkFence.OutsideTerm.class);
        assertThatThrownBy(fence::enter).isInstanceOf(WorkFence.OutsideTerm.class);
        assertThat(fence.open(() -> Optional.of(Duration.ofSeconds(5)))).isEqualTo(2);
    }

    @Test
    void closingRefusesNewWorkAtOnceAndAwaitIdleWaitsForTheWorkAlreadyAdmitted() throws Exception {
        WorkFence fence = WorkFence.closed();
        fence.open(() -> Optional.of(Duration.ofSeconds(10)));
        CountDownLatch admitted = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        Thread worker = new Thread(() -> {
            try (WorkFence.Permit p = fence.enter()) {
                admitted.countDown();
                finish.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        worker.start();
        assertThat(admitted.await(10, TimeUnit.SECONDS)).isTrue();
        fence.close();
        assertThatThrownBy(fence::enter).isInstanceOf(WorkFence.OutsideTerm.class);
        assertThatThrownBy(fence::writeBudget).isInstanceOf(WorkFence.OutsideTerm.class);
        assertThat(fence.running()).isEqualTo(1);
        assertThat(fence.awaitIdle(Duration.ofMillis(50)))
                .as("work still running")
                .isFalse();
        finish.countDown();
        assertThat(fence.awaitIdle(Duration.ofSeconds(10))).isTrue();
        assertThat(fence.running()).isZero();
        worker.join();
    }

    @Test
    void aBoundNarrowsTheWritesOfItsThreadAndGoesWithTheWorkItHandsOn() throws Exception {
        WorkFence fence = WorkFence.closed();
        fence.open(() -> Optional.of(Duration.ofSeconds(10)));
        AtomicReference<Optional<Duration>> nodeLease = new AtomicReference<>(Optional.of(Duration.ofSeconds(3)));
        WorkFence.Bound bound = new WorkFence.Bound("node lease ns/node-w1", nodeLease::get);

        assertThat(WorkFence.bounded(bound, fence::writeBudget)).isEqualTo(Duration.ofSeconds(3));
        assertThat(fence.writeBudget()).as("outside the bound").isEqualTo(Duration.ofSeconds(10));

        nodeLease.set(Optional.of(Duration.ZERO));
        assertThatThrownBy(() -> WorkFence.bounded(bound, fence::writeBudget))
                .isInstanceOf(WorkFence.OutsideTerm.class)
                .hasMessage("node lease ns/node-w1 has ended");
        assertThat(fence.isOpen()).as("the bound ends writes, not the term").isTrue();

        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newSingleThreadExecutor();
        try {
            java.util.concurrent.Callable<Duration> handedOn =
                    WorkFence.bounded(bound, () -> WorkFence.carry(fence::writeBudget));
            assertThatThrownBy(() -> pool.submit(handedOn).get())
                    .as("a write on the pool's thread is bounded as on the thread that handed it on")
                    .hasCauseInstanceOf(WorkFence.OutsideTerm.class);
            assertThat(pool.submit(fence::writeBudget).get())
                    .as("the pool's thread keeps no bound after the task")
                    .isEqualTo(Duration.ofSeconds(10));
        } finally {
            pool.shutdownNow();
        }

        fence.close();
        assertThatThrownBy(() -> WorkFence.bounded(
                        new WorkFence.Bound("x", () -> Optional.of(Duration.ofSeconds(5))), fence::writeBudget))
                .hasMessage("no leadership term is open");
        assertThat(WorkFence.refusal(new RuntimeException("wrapped", new WorkFence.OutsideTerm("gone"))))
                .hasValueSatisfying(r -> assertThat(r.getMessage()).isEqualTo("gone"));
    }

    /** The term's time left read once per write: two reads that disagree must not blame a bound there is none of. */
    @Test
    void aWriteBudgetReadsTheTermOnce() {
        WorkFence fence = WorkFence.closed();
        java.util.Iterator<Duration> shrinking =
                java.util.List.of(Duration.ofMillis(51), Duration.ofMillis(49)).iterator();
        fence.open(() -> Optional.of(shrinking.hasNext() ? shrinking.next() : Duration.ZERO));
        assertThat(fence.writeBudget()).isEqualTo(Duration.ofMillis(51));
    }

    @Test
    void aPermitClosedTwiceCountsOnce() throws Exception {
        WorkFence fence = WorkFence.alwaysOpen();
        WorkFence.Permit a = fence.enter();
        WorkFence.Permit b = fence.enter();
        a.close();
        a.close();
        assertThat(fence.running()).isEqualTo(1);
        b.close();
        assertThat(fence.awaitIdle(Duration.ZERO)).isTrue();
    }
}
