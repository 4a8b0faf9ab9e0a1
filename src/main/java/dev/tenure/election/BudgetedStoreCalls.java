package dev.tenure.election;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * Store calls bounded by the budget their attempt has left (client-go's context deadline): the elector's only way to
 * the store, so no call can hold up a term past its deadline.
 */
final class BudgetedStoreCalls {
    private final ElectionConfig config;

    BudgetedStoreCalls(ElectionConfig config) {
        this.config = config;
    }

    /**
     * Runs one store call, bounded by {@code deadline} on the monotonic clock when store calls run on their
     * own executor: past it the call is abandoned (interrupted) and the attempt counts as failed. A write
     * abandoned this way may still land; that only renews or takes a lease we then find ours on the next
     * read, it never extends a term (terms are extended only by a renew whose answer we saw in time).
     */
    <T> T call(Instant deadline, Supplier<T> op) {
        LeaseKey lease = config.lease();
        Duration budget = Duration.between(config.monotonic().instant(), deadline);
        if (budget.isNegative() || budget.isZero()) {
            throw new LeaseStoreFailure(lease, 0, "no time left in this attempt", null);
        }
        if (config.storeCalls() == null) {
            return op.get();
        }
        Future<T> f;
        try {
            f = config.storeCalls().submit(op::get);
        } catch (RejectedExecutionException e) {
            throw new LeaseStoreFailure(lease, 0, "store calls are shut down", e);
        }
        try {
            return f.get(budget.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            f.cancel(true);
            throw new LeaseStoreFailure(
                    lease, 0, "no answer within the attempt's budget of " + budget.toMillis() + " ms", null);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new LeaseStoreFailure(lease, 0, String.valueOf(e.getCause()), e.getCause());
        } catch (InterruptedException e) {
            f.cancel(true);
            Thread.currentThread().interrupt();
            throw new LeaseStoreFailure(lease, 0, "interrupted", e);
        }
    }
}
