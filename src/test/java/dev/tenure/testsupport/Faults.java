package dev.tenure.testsupport;

import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * Fault hook of the emulated API server: fail or delay the next N requests that match a predicate, or
 * fail matching requests at random (seeded, so a chaos run can be replayed). A fault acts on the answer the client
 * gets, whatever the emulator rewrote it into (a typed list, kubectl's Table): a delayed request is answered no
 * earlier than its delay after it arrived, a delayed watch opens and sends its first event no earlier than that
 * ({@code FaultsTest} checks each fault on each verb by the time it takes).
 */
public final class Faults {

    /** What to do with one request: answer with {@code status} (when > 0) and/or delay the answer. */
    record Fault(int status, Duration delay) {}

    private record Rule(Predicate<ApiRequest> match, AtomicInteger remaining, int status, Duration delay) {}

    private record RandomRule(Predicate<ApiRequest> match, double probability, Random random, List<Integer> statuses) {}

    private final List<Rule> rules = new CopyOnWriteArrayList<>();
    private volatile RandomRule random;

    /** The next {@code times} requests matching {@code match} are answered with {@code status} and a Status body. */
    public Faults failNext(int times, Predicate<ApiRequest> match, int status) {
        if (times <= 0 || status < 400) {
            throw new IllegalArgumentException("failNext needs times > 0 and an error status (>= 400)");
        }
        rules.add(new Rule(match, new AtomicInteger(times), status, Duration.ZERO));
        return this;
    }

    /** The next {@code times} requests matching {@code match} are served normally, but answered after {@code delay}. */
    public Faults delayNext(int times, Predicate<ApiRequest> match, Duration delay) {
        if (times <= 0 || delay.isNegative()) {
            throw new IllegalArgumentException("delayNext needs times > 0 and a non-negative delay");
        }
        rules.add(new Rule(match, new AtomicInteger(times), 0, delay));
        return this;
    }

    /**
     * Whether a {@link #failNext} or {@link #delayNext} rule made with this very {@code match} still has requests
     * left to act on: a driver that means "the next call" checks it so its faults do not pile up while nobody calls.
     */
    public boolean pending(Predicate<ApiRequest> match) {
        return rules.stream().anyMatch(r -> r.match == match && r.remaining.get() > 0);
    }

    /**
     * Chaos mode: each request matching {@code match} fails with {@code probability}, with a status drawn
     * from {@code statuses}; the same seed and request sequence give the same faults.
     */
    public Faults random(double probability, long seed, List<Integer> statuses, Predicate<ApiRequest> match) {
        if (probability < 0 || probability > 1 || statuses.isEmpty()) {
            throw new IllegalArgumentException("random faults need 0 <= probability <= 1 and at least one status");
        }
        random = new RandomRule(match, probability, new Random(seed), List.copyOf(statuses));
        return this;
    }

    /** Removes every rule and stops random faults. */
    public void clear() {
        rules.clear();
        random = null;
    }

    /**
     * {@code socket} holding back what is sent on it until {@code delay} has passed, then sending it in order: a
     * watch whose answer is delayed (its upgrade is answered at once; the events are what a client waits for).
     */
    static WebSocket delayed(WebSocket socket, Duration delay) {
        DelayedSocket delayed = new DelayedSocket(socket);
        RELEASES.schedule(delayed::release, delay.toNanos(), TimeUnit.NANOSECONDS);
        return delayed;
    }

    private static final ScheduledExecutorService RELEASES = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "emulated-cluster-delayed-watches");
        t.setDaemon(true);
        return t;
    });

    /** A socket whose messages wait in order until {@link #release}, then pass straight through. */
    private static final class DelayedSocket implements WebSocket {
        private final WebSocket socket;
        private final List<String> held = new ArrayList<>();
        private boolean released;

        DelayedSocket(WebSocket socket) {
            this.socket = socket;
        }

        synchronized void release() {
            held.forEach(socket::send);
            held.clear();
            released = true;
        }

        @Override
        public RecordedRequest request() {
            return socket.request();
        }

        @Override
        public synchronized boolean send(String text) {
            if (released) {
                return socket.send(text);
            }
            held.add(text);
            return true;
        }

        @Override
        public boolean send(byte[] bytes) {
            return send(new String(bytes, StandardCharsets.UTF_8));
        }

        @Override
        public boolean close(int code, String reason) {
            return socket.close(code, reason);
        }
    }

    @SuppressWarnings("ModifyCollectionInEnhancedForLoop") // rules is a CopyOnWriteArrayList: the loop reads a snapshot
    Optional<Fault> next(ApiRequest request) {
        for (Rule rule : rules) {
            if (rule.match.test(request) && rule.remaining.getAndDecrement() > 0) {
                if (rule.remaining.get() <= 0) {
                    rules.remove(rule);
                }
                return Optional.of(new Fault(rule.status, rule.delay));
            }
        }
        RandomRule r = random;
        if (r != null && r.match.test(request)) {
            synchronized (r) {
                if (r.random.nextDouble() < r.probability) {
                    return Optional.of(new Fault(r.statuses.get(r.random.nextInt(r.statuses.size())), Duration.ZERO));
                }
            }
        }
        return Optional.empty();
    }
}
