package dev.tenure.election;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ExecutorSchedulerTest {

    @Test
    void runsTasksUntilClosedAndDropsThoseScheduledAfter() {
        AtomicInteger ran = new AtomicInteger();
        ExecutorScheduler scheduler = new ExecutorScheduler("executor-scheduler-test");
        scheduler.schedule(Duration.ZERO, ran::incrementAndGet);
        await().atMost(Duration.ofSeconds(10)).until(() -> ran.get() == 1);
        scheduler.close();
        // a watch event delivered after its elector stopped lands here: dropped, not thrown at the watch thread
        Scheduler.Scheduled late = scheduler.schedule(Duration.ZERO, ran::incrementAndGet);
        late.cancel();
        assertThat(ran).hasValue(1);
    }
}
