package dev.tenure.testsupport;

import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * Every request the emulated API server received, in arrival order (internal emulator writes excluded), and how each
 * was answered ({@link #answers}).
 */
public final class RequestLog {
    /**
     * How the emulated API server answered one request.
     *
     * @param status the HTTP status the client got (a delay fault does not change it)
     * @param causeReason the first {@code details.causes[].reason} of an error's Status body ({@code DisruptionBudget}
     *     when an eviction was refused by a PodDisruptionBudget), "" when none
     * @param injected the answer is a fault a test injected ({@link Faults#failNext}, {@link Faults#random}), not the
     *     emulator's own
     * @param at when it was answered, on the cluster's clock ({@link EmulatedCluster.Options#clock})
     */
    public record Answer(ApiRequest request, int status, String causeReason, boolean injected, Instant at) {
        /** An eviction refused because a PodDisruptionBudget allows no disruption now (the 429 with its cause). */
        public boolean refusedByBudget() {
            return status == 429 && "DisruptionBudget".equals(causeReason);
        }
    }

    private final List<ApiRequest> requests = new CopyOnWriteArrayList<>();
    private final List<Answer> answers = new CopyOnWriteArrayList<>();
    private final List<Consumer<ApiRequest>> observers = new CopyOnWriteArrayList<>();

    void record(ApiRequest request) {
        requests.add(request);
        observers.forEach(o -> o.accept(request));
    }

    void answered(Answer answer) {
        answers.add(answer);
    }

    /** How each request was answered, in the order answered (a fault's delay is not waited before it is recorded). */
    public List<Answer> answers() {
        return List.copyOf(answers);
    }

    /**
     * Calls {@code observer} with each request as it arrives, on the server's thread and before the request is
     * served: a test's witness of what the cluster looked like at that moment (read it with
     * {@link EmulatedCluster#stored}, never with a client, which would wait on this very thread).
     */
    public void observe(Consumer<ApiRequest> observer) {
        observers.add(observer);
    }

    public void stopObserving(Consumer<ApiRequest> observer) {
        observers.remove(observer);
    }

    public List<ApiRequest> all() {
        return List.copyOf(requests);
    }

    public List<ApiRequest> matching(Predicate<ApiRequest> predicate) {
        return requests.stream().filter(predicate).toList();
    }

    public long count(Predicate<ApiRequest> predicate) {
        return requests.stream().filter(predicate).count();
    }

    public void clear() {
        requests.clear();
        answers.clear();
    }
}
