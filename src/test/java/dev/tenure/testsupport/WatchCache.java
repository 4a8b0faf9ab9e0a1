package dev.tenure.testsupport;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.crud.AttributeSet;
import io.fabric8.mockwebserver.http.Response;
import io.fabric8.mockwebserver.http.WebSocket;
import io.fabric8.mockwebserver.http.WebSocketListener;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * kube-apiserver's watch cache (staging/src/k8s.io/apiserver/pkg/storage/cacher): the last {@code capacity} changes
 * of each resource are kept, so a watch started from a resourceVersion R is sent every change after R, and one whose
 * R is older than what is kept is answered with a 410 Gone ERROR event (watch_cache.go getAllEventsSinceLocked "too
 * old resource version"; cacher.go Watch sends it as the watch's one event, newErrWatcher). A watch without a
 * resourceVersion, or with "0", starts with an ADDED event per current object. API concepts, "Efficient detection of
 * changes".
 *
 * <p>A watch that asks for bookmarks ({@code allowWatchBookmarks=true}, as every client-go reflector and fabric8
 * informer does) is sent a BOOKMARK event, an object of the watched kind with nothing but the resourceVersion it has
 * been sent every change up to, about once a minute and just before the server ends the watch at its timeout
 * (cacher.go: {@code bookmarkFrequency}, and the bookmark due before a watch's deadline). A client that watches again
 * from it is not told 410 Gone for changes of other objects it never saw.
 *
 * <p>Not thread-safe by itself: {@link #record} is called under the CRUD store's write lock and {@code open} under
 * its read lock, so a watch opens between two writes and misses none.
 */
final class WatchCache {
    private static final org.jboss.logging.Logger LOG = org.jboss.logging.Logger.getLogger(WatchCache.class);

    /** One change: the object before (null on create) and after (null on delete), with their store keys. */
    record Change(long resourceVersion, AttributeSet oldKey, String oldJson, AttributeSet newKey, String newJson) {}

    private final int capacity;
    private final Map<String, Deque<Change>> byResource = new HashMap<>();
    /** Per resource: a watch from a resourceVersion below this gets 410 Gone. */
    private final Map<String, Long> tooOldBelow = new HashMap<>();

    private final Set<Watch> watches = new CopyOnWriteArraySet<>();
    /** The newest change recorded, of any resource: what a bookmark says a watch has seen. */
    private volatile long lastResourceVersion;
    /** Per resource: the apiVersion and kind of its objects, for the bookmarks of its watches. */
    private final Map<String, String[]> kinds = new java.util.concurrent.ConcurrentHashMap<>();

    private final java.util.concurrent.ScheduledExecutorService bookmarkTimer =
            Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "emulated-watch-bookmarks");
                t.setDaemon(true);
                return t;
            });
    private final ExecutorService senders = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "emulated-watch-sender");
        t.setDaemon(true);
        return t;
    });

    /** Per resource: how long each change waits before a watch is sent it ({@link #lag}). */
    private final Map<String, Long> lagNanos = new java.util.concurrent.ConcurrentHashMap<>();

    WatchCache(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("watch cache capacity must be >= 1, was " + capacity);
        }
        this.capacity = capacity;
        bookmarkTimer.scheduleAtFixedRate(this::sendBookmarks, 1, 1, java.util.concurrent.TimeUnit.MINUTES);
    }

    /** Keeps a change of {@code resource} and sends it to every open watch it concerns. */
    void record(String resource, Change change) {
        lastResourceVersion = Math.max(lastResourceVersion, change.resourceVersion());
        kinds.computeIfAbsent(resource, r -> kindOf(change.newJson() != null ? change.newJson() : change.oldJson()));
        Deque<Change> kept = byResource.computeIfAbsent(resource, r -> new ArrayDeque<>());
        kept.addLast(change);
        if (kept.size() > capacity) {
            kept.removeFirst();
            tooOldBelow.put(resource, kept.peekFirst().resourceVersion() - 1);
        }
        for (Watch w : watches) {
            w.offer(change);
        }
    }

    /**
     * Every watch of {@code resource} is sent each change {@code lag} after it happened, in order, as from a busy
     * kube-apiserver or to a client whose event loop is behind: a reader of the informer's cache sees the object as it
     * was, for that long, after its own write. Zero ends the lag (changes already waiting keep their time).
     */
    void lag(String resource, java.time.Duration lag) {
        if (lag.isZero()) {
            lagNanos.remove(resource);
        } else {
            lagNanos.put(resource, lag.toNanos());
        }
    }

    /**
     * How many watches of {@code resource} are open and sent every change from now on: a test that must change an
     * object only after a client's watch has started (e.g. kubectl's watch of one named object, which drops its first
     * event) waits on it.
     */
    long open(String resource) {
        return watches.stream().filter(w -> w.resource.equals(resource)).count();
    }

    /**
     * Ends every open watch, as kube-apiserver does at its request timeout: a watch that asked for bookmarks is sent
     * one first, and clients watch again from where they were.
     */
    void closeAll() {
        sendBookmarks();
        dropAll();
    }

    /** Ends every open watch without a bookmark, as a lost connection does. */
    void dropAll() {
        for (Watch w : watches) {
            w.close();
        }
    }

    /** Sends each open watch that asked for bookmarks one, with the newest resourceVersion recorded. */
    void sendBookmarks() {
        for (Watch w : watches) {
            w.bookmark();
        }
    }

    private static String[] kindOf(String json) {
        try {
            com.fasterxml.jackson.databind.JsonNode tree =
                    Serialization.jsonMapper().readTree(json);
            return new String[] {
                tree.path("apiVersion").asText(), tree.path("kind").asText()
            };
        } catch (java.io.IOException e) {
            return new String[] {"", ""};
        }
    }

    /**
     * A watch of the objects matching {@code query} of {@code resource}, from {@code since} (<= 0: from the current
     * state, {@code current} giving the stored objects and their keys).
     */
    WebSocketListener watch(
            String resource,
            AttributeSet query,
            long since,
            boolean bookmarks,
            Supplier<Map<AttributeSet, String>> current,
            java.util.concurrent.locks.Lock storeReadLock) {
        return new WebSocketListener() {
            private Watch watch;

            @Override
            public void onOpen(WebSocket ws, Response response) {
                storeReadLock.lock();
                try {
                    watch = new Watch(resource, query, ws, bookmarks, storeReadLock);
                    if (since <= 0) {
                        current.get().forEach((key, json) -> {
                            if (key.matches(query)) {
                                watch.send("ADDED", json);
                            }
                        });
                    } else {
                        long floor = tooOldBelow.getOrDefault(resource, 0L);
                        if (since < floor) {
                            watch.sendRaw(expired(since, floor));
                            watch.close();
                            return;
                        }
                        int replayed = 0;
                        for (Change c : byResource.getOrDefault(resource, new ArrayDeque<>())) {
                            if (c.resourceVersion() > since && watch.offer(c)) {
                                replayed++;
                            }
                        }
                        // One line per reconnect (~2,900 in a make test, most from the chaos suites' dropped
                        // watches); what a resumed watch was sent says why a client missed a change.
                        LOG.infof(
                                "watch of %s %s resumed from %d: %d change(s) after it sent",
                                resource, query, since, replayed);
                    }
                    watches.add(watch);
                } finally {
                    storeReadLock.unlock();
                }
            }

            @Override
            public void onClosing(WebSocket ws, int code, String reason) {
                ws.close(code, reason);
            }

            @Override
            public void onClosed(WebSocket ws, int code, String reason) {
                if (watch != null) {
                    watches.remove(watch);
                }
            }

            @Override
            public void onFailure(WebSocket ws, Throwable t, Response response) {
                onClosed(ws, 1000, String.valueOf(t));
            }
        };
    }

    void shutdown() {
        bookmarkTimer.shutdownNow();
        senders.shutdownNow();
    }

    /** The ERROR event of a watch from a resourceVersion the cache no longer has (apimachinery NewResourceExpired). */
    static String expired(long since, long floor) {
        ObjectNode event = Serialization.jsonMapper().createObjectNode().put("type", "ERROR");
        ObjectNode status = event.putObject("object").put("kind", "Status").put("apiVersion", "v1");
        status.putObject("metadata");
        status.put("status", "Failure")
                .put("message", "too old resource version: " + since + " (" + floor + ")")
                .put("reason", "Expired")
                .put("code", 410);
        return event.toString();
    }

    /** One open watch: its events go out in order on one sender at a time. */
    private final class Watch {
        private final String resource;
        private final AttributeSet query;
        private final WebSocket ws;
        private final boolean bookmarks;
        private final java.util.concurrent.locks.Lock storeReadLock;
        private final Queue<Runnable> pending = new ConcurrentLinkedQueue<>();
        private final AtomicBoolean draining = new AtomicBoolean();

        Watch(
                String resource,
                AttributeSet query,
                WebSocket ws,
                boolean bookmarks,
                java.util.concurrent.locks.Lock storeReadLock) {
            this.resource = resource;
            this.query = query;
            this.ws = ws;
            this.bookmarks = bookmarks;
            this.storeReadLock = storeReadLock;
        }

        /** A BOOKMARK, queued between two writes so it follows every change it vouches for. */
        void bookmark() {
            String[] kind = kinds.get(resource);
            if (!bookmarks || kind == null) {
                return;
            }
            storeReadLock.lock();
            try {
                ObjectNode event = Serialization.jsonMapper().createObjectNode().put("type", "BOOKMARK");
                ObjectNode object =
                        event.putObject("object").put("kind", kind[1]).put("apiVersion", kind[0]);
                object.putObject("metadata").put("resourceVersion", String.valueOf(lastResourceVersion));
                sendRaw(event.toString());
            } finally {
                storeReadLock.unlock();
            }
        }

        /**
         * Sends the change as the event this watch sees (KubernetesCrudDispatcher.processEvent's rule); false when it
         * does not concern this watch.
         */
        boolean offer(Change c) {
            boolean matchesOld = c.oldKey() != null && c.oldKey().matches(query);
            boolean matchesNew = c.newKey() != null && c.newKey().matches(query);
            String type = matchesOld && matchesNew ? "MODIFIED" : matchesOld ? "DELETED" : matchesNew ? "ADDED" : null;
            if (type == null) {
                return false;
            }
            String event = "{\"type\":\"" + type + "\",\"object\":" + (matchesNew ? c.newJson() : c.oldJson()) + "}";
            Long lag = lagNanos.get(resource);
            if (lag == null) {
                sendRaw(event);
            } else {
                long due = System.nanoTime() + lag;
                enqueue(() -> {
                    for (long left = due - System.nanoTime(); left > 0; left = due - System.nanoTime()) {
                        java.util.concurrent.locks.LockSupport.parkNanos(left);
                    }
                    send(event);
                });
            }
            return true;
        }

        void send(String type, String json) {
            sendRaw("{\"type\":\"" + type + "\",\"object\":" + json + "}");
        }

        void sendRaw(String event) {
            enqueue(() -> send(event));
        }

        /** Writes one event; a write the socket refuses is logged (a client that then misses a change says why). */
        private void send(String event) {
            if (!ws.send(event)) {
                LOG.warnf("watch of %s %s: the socket refused an event: %.200s", resource, query, event);
            }
        }

        void close() {
            watches.remove(this);
            enqueue(() -> ws.close(1000, ""));
        }

        private void enqueue(Runnable r) {
            pending.add(r);
            drain();
        }

        private void drain() {
            if (!draining.compareAndSet(false, true)) {
                return;
            }
            try {
                senders.execute(() -> {
                    try {
                        for (Runnable r = pending.poll(); r != null; r = pending.poll()) {
                            try {
                                r.run();
                            } catch (RuntimeException e) {
                                // a socket gone away: its onClosed removes the watch
                            }
                        }
                    } finally {
                        draining.set(false);
                        if (!pending.isEmpty()) {
                            drain();
                        }
                    }
                });
            } catch (java.util.concurrent.RejectedExecutionException e) {
                draining.set(false); // the cluster is shutting down
            }
        }
    }
}
