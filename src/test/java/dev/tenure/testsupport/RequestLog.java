package dev.tenure.testsupport;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Predicate;

/** Every request the emulated API server received, in arrival order (internal emulator writes excluded). */
public final class RequestLog {
    private final List<ApiRequest> requests = new CopyOnWriteArrayList<>();
    private final List<Consumer<ApiRequest>> observers = new CopyOnWriteArrayList<>();

    void record(ApiRequest request) {
        requests.add(request);
        observers.forEach(o -> o.accept(request));
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
    }
}
