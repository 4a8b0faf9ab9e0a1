package dev.tenure.testsupport;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.server.mock.KubernetesAttributesExtractor;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesResponseComposer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.crud.Attribute;
import io.fabric8.mockwebserver.crud.AttributeSet;
import io.fabric8.mockwebserver.crud.AttributeType;
import io.fabric8.mockwebserver.http.MockResponse;
import java.net.HttpURLConnection;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.regex.Pattern;

/**
 * The fabric8 CRUD store with its lookups indexed. The stock dispatcher answers every GET, and looks up the
 * object of every create, update and patch, by matching the request against <em>every</em> stored object
 * (about 1 µs each); with 6 000 pods a single GET cost ~7 ms under the store's global lock, and the simulated
 * kubelets' lease renewals alone kept a core busy. Here the same matching ({@link AttributeSet#matches}) runs
 * only over the objects of the requested resource (and name, when the request names one), and pods are also
 * indexed by {@code spec.nodeName} for the drain's field selector.
 *
 * <p>The index mirrors the store: it is updated in {@link #processEvent}, the one place the CRUD handlers
 * write through, and every entry is checked against the store as it is indexed. Results keep the store's
 * order (last written last), so answers are those of the stock dispatcher, only sooner. Writes and watches
 * stay the stock dispatcher's; deletes and the start of a watch still scan the whole store (rare here: the
 * simulated kubelets finish a pod by an update that drops their finalizer).
 */
final class IndexedCrudDispatcher extends KubernetesCrudDispatcher {
    /** {@code /api}, {@code /api/v1}, {@code /apis}, {@code /apis/<group>}, {@code /apis/<group>/<version>}. */
    private static final Pattern API_GROUP_PATH = Pattern.compile("^(/api(/[^/?]+)?|/apis(/[^/?]+){0,2})/?(\\?.*)?$");

    /**
     * One stored object: its store key and JSON, when it was last written, (pods) its node, and what the garbage
     * collector needs: where it lives, its uid and the uids of its owners.
     */
    record Stored(
            long seq,
            AttributeSet key,
            String json,
            String plural,
            String name,
            String nodeName,
            String apiVersion,
            String namespace,
            String uid,
            List<String> ownerUids) {
        /** The object's path, e.g. {@code /apis/coordination.k8s.io/v1/namespaces/ns/leases/l}. */
        String path() {
            return ClusterStore.collectionPath(apiVersion, plural, namespace) + "/" + name;
        }
    }

    private final ReadWriteLock indexLock = new ReentrantReadWriteLock();
    private final Map<String, Map<AttributeSet, Stored>> byPlural = new HashMap<>();
    private final Map<String, Map<AttributeSet, Stored>> byPluralAndName = new HashMap<>();
    private final Map<String, Map<AttributeSet, Stored>> podsByNode = new HashMap<>();
    private final Map<AttributeSet, Stored> byKey = new HashMap<>();
    /** Stored objects by their uid, and the uids of dependents by their owners' uids (garbage collection). */
    private final Map<String, Stored> byUid = new HashMap<>();

    private final Map<String, java.util.Set<String>> dependentsByOwner = new HashMap<>();
    /** Told of each object whose owners are all gone (the garbage collector deletes it, in the background). */
    private volatile java.util.function.Consumer<Stored> orphans = s -> {};

    private final AtomicLong writes = new AtomicLong();
    /** The resourceVersion of the last change indexed: what a list of the index reflects (under indexLock). */
    private long indexedResourceVersion;
    /** The resourceVersion the store gave the write this thread is handling (its new object's), if any. */
    private static final ThreadLocal<Long> WRITTEN_VERSION = new ThreadLocal<>();

    private final WatchCache watchCache;
    /** The CRUD store's own lock: writes hold it exclusively, so a watch opens between two of them. */
    private final java.util.concurrent.locks.Lock storeReadLock;

    /** @param watchCacheCapacity changes kept per resource for watches from a resourceVersion ({@link WatchCache}) */
    IndexedCrudDispatcher(int watchCacheCapacity) {
        this.watchCache = new WatchCache(watchCacheCapacity);
        try {
            java.lang.reflect.Field field = KubernetesCrudDispatcher.class.getDeclaredField("lock");
            field.setAccessible(true);
            this.storeReadLock = ((ReadWriteLock) field.get(this)).readLock();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot reach the CRUD store's lock", e);
        }
    }

    @Override
    public long requestResourceVersion() {
        long v = super.requestResourceVersion();
        WRITTEN_VERSION.set(v);
        return v;
    }

    /**
     * {@code metadata.generation} as kube-apiserver keeps it. The stock store moves it on any change outside {@code
     * metadata} and {@code status} (a spec change: pkg/registry/apps/replicaset/strategy.go PrepareForUpdate, and the
     * generic rule for custom resources); a Deployment's also moves when its annotations change
     * (pkg/registry/apps/deployment/strategy.go PrepareForUpdate: "annotation updates bump the generation because
     * annotations are copied from deployments to their replica sets"), absent and empty annotations being equal
     * (apiequality.Semantic). A write of the status subresource never reaches here (the store's handlers skip it).
     */
    @Override
    public void touchGeneration(JsonNode current, JsonNode updated) {
        super.touchGeneration(current, updated);
        if (!"Deployment".equals(updated.path("kind").asText())
                || !updated.path("apiVersion").asText().startsWith("apps/")
                || !(updated.get("metadata") instanceof com.fasterxml.jackson.databind.node.ObjectNode meta)) {
            return;
        }
        long before = current.path("metadata").path("generation").asLong(0);
        if (meta.path("generation").asLong(0) == before && !annotations(current).equals(annotations(updated))) {
            meta.put("generation", before + 1);
        }
    }

    /** The object's annotations; absent, null and empty alike. */
    private static JsonNode annotations(JsonNode object) {
        JsonNode a = object.path("metadata").path("annotations");
        return a.isObject() ? a : com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode();
    }

    /**
     * A watch served from the {@link WatchCache}: from the request's resourceVersion when it names one (every change
     * after it, or 410 Gone), else from the current state. Query as the stock dispatcher builds it.
     */
    @Override
    public MockResponse handleWatch(String path) {
        AttributeSet query = attributeExtractor.fromPath(path);
        String name = null;
        String since = null;
        boolean bookmarks = false;
        int q = path.indexOf('?');
        if (q >= 0) {
            for (String param : path.substring(q + 1).split("&")) {
                String[] kv = param.split("=", 2);
                String value =
                        kv.length < 2 ? "" : java.net.URLDecoder.decode(kv[1], java.nio.charset.StandardCharsets.UTF_8);
                if (kv[0].equals("resourceVersion")) {
                    since = value;
                } else if (kv[0].equals("allowWatchBookmarks")) {
                    bookmarks = value.equals("true") || value.equals("1");
                } else if (kv[0].equals("fieldSelector") && value.startsWith("metadata.name=")) {
                    name = value.substring("metadata.name=".length());
                }
            }
        }
        if (name != null && !name.isEmpty()) {
            query = query.add(new Attribute("name", name));
        }
        long from = since != null && since.matches("\\d{1,18}") ? Long.parseLong(since) : 0;
        String plural = single(query, KubernetesAttributesExtractor.PLURAL);
        return new MockResponse()
                .withWebSocketUpgrade(
                        watchCache.watch(String.valueOf(plural), query, from, bookmarks, () -> map, storeReadLock));
    }

    /** {@link WatchCache#open}. */
    long openWatches(String resource) {
        return watchCache.open(resource);
    }

    /** {@link WatchCache#lag}. */
    void lagWatches(String resource, java.time.Duration lag) {
        watchCache.lag(resource, lag);
    }

    /** Ends every open watch ({@link WatchCache#closeAll}). */
    void closeWatches() {
        watchCache.closeAll();
    }

    /** Ends every open watch without a bookmark ({@link WatchCache#dropAll}). */
    void dropWatches() {
        watchCache.dropAll();
    }

    /** {@link WatchCache#sendBookmarks}. */
    void sendBookmarks() {
        watchCache.sendBookmarks();
    }

    @Override
    public void shutdown() {
        watchCache.shutdown();
        super.shutdown();
    }

    /**
     * Built-in resources served with a status subresource (kube-apiserver's {@code <resource>/status} REST storage,
     * e.g. pkg/registry/core/node/storage): a write to the main resource keeps the stored status, a write to
     * {@code /status} keeps everything else. The stock store knows this for CRDs only.
     */
    private static final java.util.Set<String> BUILT_IN_STATUS = java.util.Set.of(
            "nodes",
            "pods",
            "namespaces",
            "services",
            "replicationcontrollers",
            "persistentvolumes",
            "persistentvolumeclaims",
            "deployments",
            "replicasets",
            "statefulsets",
            "daemonsets",
            "jobs",
            "cronjobs",
            "poddisruptionbudgets",
            "volumeattachments",
            "customresourcedefinitions",
            "horizontalpodautoscalers");

    /**
     * Set while a create is handled: a built-in kind keeps the status it is created with (the seeds' nodes and pods,
     * a kubelet registering its Node), where a custom resource's is dropped (apiextensions strategy.go
     * PrepareForCreate).
     */
    private static final ThreadLocal<Boolean> CREATING = ThreadLocal.withInitial(() -> false);

    @Override
    public MockResponse dispatch(io.fabric8.mockwebserver.http.RecordedRequest request) {
        WRITTEN_VERSION.remove();
        return super.dispatch(request);
    }

    @Override
    public MockResponse handleCreate(io.fabric8.mockwebserver.http.RecordedRequest request) {
        CREATING.set(true);
        try {
            return super.handleCreate(request);
        } finally {
            CREATING.set(false);
        }
    }

    @Override
    public boolean isStatusSubresourceEnabledForResource(String path) {
        if (super.isStatusSubresourceEnabledForResource(path)) {
            return true;
        }
        if (CREATING.get()) {
            return false;
        }
        String plural = single(attributeExtractor.fromPath(path), KubernetesAttributesExtractor.PLURAL);
        return plural != null && BUILT_IN_STATUS.contains(plural) && isBuiltInPath(path);
    }

    private static boolean isBuiltInPath(String path) {
        return path.startsWith("/api/")
                || !path.startsWith("/apis/")
                || java.util.Set.of("apps", "batch", "policy", "apiextensions.k8s.io", "autoscaling")
                        .contains(path.split("/")[2]);
    }

    // ---- reads -------------------------------------------------------------------------------------------------

    @Override
    public Map.Entry<AttributeSet, String> findResource(AttributeSet query) {
        Optional<Listing> found = matching(query);
        if (found.isEmpty()) {
            return super.findResource(query);
        }
        return found.get().items().stream()
                .findFirst()
                .map(s -> (Map.Entry<AttributeSet, String>) new AbstractMap.SimpleImmutableEntry<>(s.key(), s.json()))
                .orElse(null);
    }

    @Override
    public MockResponse handleGet(String path) {
        if (path.contains("watch=true") || API_GROUP_PATH.matcher(path).matches()) {
            return super.handleGet(path); // watches, and API group paths the store may answer with resource lists
        }
        AttributeSet query = attributeExtractor.fromPath(path);
        Optional<Listing> found = matching(query);
        if (found.isEmpty()) {
            return super.handleGet(path);
        }
        List<Stored> items = found.get().items();
        if (query.containsKey(KubernetesAttributesExtractor.NAME)) {
            return items.isEmpty()
                    ? new MockResponse().setResponseCode(HttpURLConnection.HTTP_NOT_FOUND)
                    : new MockResponse()
                            .setResponseCode(HttpURLConnection.HTTP_OK)
                            .setBody(items.get(0).json());
        }
        return new MockResponse()
                .setResponseCode(HttpURLConnection.HTTP_OK)
                .setBody(list(
                        items.stream().map(Stored::json).toList(), found.get().resourceVersion()));
    }

    /**
     * Objects as listed, and the resourceVersion of the last change they reflect (read together: a watch from it
     * misses no later change, and replays none the list already holds).
     */
    record Listing(List<Stored> items, long resourceVersion) {}

    /**
     * The pods bound to {@code node} that a GET of {@code path} (a pod collection, without its field selector)
     * would list, in the store's order; empty when the path is not a pod collection.
     */
    Optional<Listing> podsOnNode(String path, String node) {
        AttributeSet query = attributeExtractor.fromPath(path);
        if (!"pods".equals(single(query, KubernetesAttributesExtractor.PLURAL))
                || query.containsKey(KubernetesAttributesExtractor.NAME)) {
            return Optional.empty();
        }
        indexLock.readLock().lock();
        try {
            return Optional.of(new Listing(
                    ordered(podsByNode.getOrDefault(node, Map.of()).values(), query), indexedResourceVersion));
        } finally {
            indexLock.readLock().unlock();
        }
    }

    /** A list body as the store composes it, at {@code resourceVersion}. */
    String list(Collection<String> items, long resourceVersion) {
        return ((KubernetesResponseComposer) responseComposer).compose(items, String.valueOf(resourceVersion));
    }

    /** Stored objects matching {@code query}, in store order; empty when the query names no resource. */
    private Optional<Listing> matching(AttributeSet query) {
        String plural = single(query, KubernetesAttributesExtractor.PLURAL);
        if (plural == null) {
            return Optional.empty();
        }
        String name = single(query, KubernetesAttributesExtractor.NAME);
        if (name == null) {
            name = single(query, KubernetesAttributesExtractor.METADATA_NAME);
        }
        indexLock.readLock().lock();
        try {
            Map<AttributeSet, Stored> bucket =
                    name == null ? byPlural.get(plural) : byPluralAndName.get(plural + "/" + name);
            return Optional.of(
                    new Listing(bucket == null ? List.of() : ordered(bucket.values(), query), indexedResourceVersion));
        } finally {
            indexLock.readLock().unlock();
        }
    }

    private static List<Stored> ordered(Collection<Stored> candidates, AttributeSet query) {
        List<Stored> out = new ArrayList<>();
        for (Stored s : candidates) {
            if (s.key().matches(query)) {
                out.add(s);
            }
        }
        out.sort(Comparator.comparingLong(Stored::seq));
        return out;
    }

    /** The one value of a plain ("key=value") attribute, else null. */
    private static String single(AttributeSet set, String key) {
        Attribute a = set.getAttribute(key);
        if (a == null || a.getType() != AttributeType.WITH || a.getValues().size() != 1) {
            return null;
        }
        return a.getValues().get(0).toString();
    }

    // ---- the index follows every write ---------------------------------------------------------------------

    /**
     * Called by the CRUD handlers, under the store's write lock, for every create, update, patch and delete.
     * The index moves first, so a client that sees the watch event the store sends can read what it announced.
     */
    @Override
    public void processEvent(
            String path,
            AttributeSet pathAttributes,
            AttributeSet oldAttributes,
            GenericKubernetesResource resource,
            String newState) {
        // The change as watches see it: its resourceVersion is the one the store gave the new object; a delete gets
        // one of its own (the DELETED object carries it, as upstream). A write that changed nothing is no change.
        String existing = oldAttributes == null ? null : map.get(oldAttributes);
        Long written = WRITTEN_VERSION.get();
        WRITTEN_VERSION.remove();
        boolean change = !java.util.Objects.equals(existing, newState)
                && (newState == null ? existing != null : written != null);
        long changeVersion = 0;
        String deleted = null;
        if (change && newState == null) {
            changeVersion = super.requestResourceVersion();
            deleted = withResourceVersion(existing, changeVersion);
        } else if (change) {
            changeVersion = written;
        }
        Stored added = null;
        if (newState != null) {
            // The key the store is about to use, derived as KubernetesCrudDispatcher.processEvent derives it.
            KubernetesAttributesExtractor extractor = (KubernetesAttributesExtractor) attributeExtractor;
            AttributeSet key = resource != null ? extractor.extract(resource) : extractor.fromResource(newState);
            if (!key.containsKey(KubernetesAttributesExtractor.PLURAL)) {
                key = AttributeSet.merge(pathAttributes, key);
            }
            String plural = single(key, KubernetesAttributesExtractor.PLURAL);
            String name = single(key, KubernetesAttributesExtractor.NAME);
            String node = "pods".equals(plural) ? nodeName(resource, newState) : null;
            Stored previous;
            indexLock.readLock().lock();
            try {
                previous = oldAttributes == null ? null : byKey.get(oldAttributes);
            } finally {
                indexLock.readLock().unlock();
            }
            Identity identity = identity(resource, newState, previous);
            added = new Stored(
                    writes.incrementAndGet(),
                    key,
                    newState,
                    plural,
                    name,
                    node,
                    identity.apiVersion(),
                    identity.namespace(),
                    identity.uid(),
                    identity.ownerUids());
        }
        List<Stored> orphaned = new ArrayList<>();
        indexLock.writeLock().lock();
        try {
            Stored old = oldAttributes == null ? null : byKey.remove(oldAttributes);
            if (old != null) {
                remove(byPlural, old.plural(), old);
                remove(byPluralAndName, old.plural() + "/" + old.name(), old);
                remove(podsByNode, old.nodeName(), old);
                forget(old);
            }
            if (added != null) {
                byKey.put(added.key(), added);
                add(byPlural, added.plural(), added);
                add(byPluralAndName, added.plural() + "/" + added.name(), added);
                add(podsByNode, added.nodeName(), added);
                remember(added);
            }
            if (old != null && added == null && old.uid() != null) {
                orphaned.addAll(orphansOf(old.uid()));
            }
            if (change) {
                indexedResourceVersion = Math.max(indexedResourceVersion, changeVersion);
            }
        } finally {
            indexLock.writeLock().unlock();
        }
        super.processEvent(path, pathAttributes, oldAttributes, resource, newState);
        if (added != null && map.get(added.key()) != newState) {
            throw new IllegalStateException("emulated cluster: index out of step with the CRUD store at " + path);
        }
        if (change) {
            String plural =
                    added != null ? added.plural() : single(oldAttributes, KubernetesAttributesExtractor.PLURAL);
            watchCache.record(
                    String.valueOf(plural),
                    new WatchCache.Change(
                            changeVersion,
                            existing == null ? null : oldAttributes,
                            newState == null ? deleted : existing,
                            added == null ? null : added.key(),
                            newState));
        }
        orphaned.forEach(orphans);
    }

    /** {@code json} with metadata.resourceVersion set to {@code version}. */
    private static String withResourceVersion(String json, long version) {
        try {
            JsonNode tree = Serialization.jsonMapper().readTree(json);
            if (tree.path("metadata") instanceof com.fasterxml.jackson.databind.node.ObjectNode meta) {
                meta.put("resourceVersion", String.valueOf(version));
            }
            return tree.toString();
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            return json;
        }
    }

    /** The JSON of every stored object of a resource (plural), in store order. */
    List<String> stored(String plural) {
        indexLock.readLock().lock();
        try {
            Map<AttributeSet, Stored> bucket = byPlural.get(plural);
            return bucket == null
                    ? List.of()
                    : bucket.values().stream()
                            .sorted(Comparator.comparingLong(Stored::seq))
                            .map(Stored::json)
                            .toList();
        } finally {
            indexLock.readLock().unlock();
        }
    }

    /** Where the garbage collector hears of objects whose owners are all gone. */
    void onOrphans(java.util.function.Consumer<Stored> orphans) {
        this.orphans = orphans;
    }

    /** The stored object with this uid, if any (the garbage collector's check before it deletes). */
    Optional<Stored> byUid(String uid) {
        indexLock.readLock().lock();
        try {
            return Optional.ofNullable(byUid.get(uid));
        } finally {
            indexLock.readLock().unlock();
        }
    }

    /**
     * The dependents of a removed owner none of whose owners is left (garbage collector: an object is deleted in
     * the background once every owner named by its ownerReferences is gone; kube-controller-manager
     * pkg/controller/garbagecollector/garbagecollector.go attemptToDeleteItem, "all owners are absent").
     */
    private List<Stored> orphansOf(String ownerUid) {
        List<Stored> out = new ArrayList<>();
        for (String dependentUid : dependentsByOwner.getOrDefault(ownerUid, java.util.Set.of())) {
            Stored dependent = byUid.get(dependentUid);
            if (dependent != null && dependent.ownerUids().stream().noneMatch(byUid::containsKey)) {
                out.add(dependent);
            }
        }
        return out;
    }

    private void remember(Stored s) {
        if (s.uid() == null) {
            return;
        }
        byUid.put(s.uid(), s);
        for (String owner : s.ownerUids()) {
            dependentsByOwner
                    .computeIfAbsent(owner, k -> new java.util.HashSet<>())
                    .add(s.uid());
        }
    }

    private void forget(Stored s) {
        if (s.uid() == null) {
            return;
        }
        byUid.remove(s.uid());
        for (String owner : s.ownerUids()) {
            java.util.Set<String> dependents = dependentsByOwner.get(owner);
            if (dependents != null) {
                dependents.remove(s.uid());
                if (dependents.isEmpty()) {
                    dependentsByOwner.remove(owner);
                }
            }
        }
    }

    private record Identity(String apiVersion, String namespace, String uid, List<String> ownerUids) {}

    /**
     * apiVersion, namespace, uid and owner uids of a written object: from the parsed resource when the store has
     * one, else from the JSON (an update: the uid is the one already stored, and only a body that names
     * ownerReferences is parsed for them).
     */
    private static Identity identity(GenericKubernetesResource resource, String json, Stored previous) {
        if (resource != null && resource.getMetadata() != null) {
            var meta = resource.getMetadata();
            return new Identity(
                    resource.getApiVersion(),
                    meta.getNamespace(),
                    meta.getUid(),
                    meta.getOwnerReferences() == null
                            ? List.of()
                            : meta.getOwnerReferences().stream()
                                    .map(io.fabric8.kubernetes.api.model.OwnerReference::getUid)
                                    .filter(java.util.Objects::nonNull)
                                    .toList());
        }
        if (previous != null
                && !json.contains("\"ownerReferences\"")
                && previous.ownerUids().isEmpty()) {
            return new Identity(previous.apiVersion(), previous.namespace(), previous.uid(), List.of());
        }
        try {
            JsonNode tree = Serialization.jsonMapper().readTree(json);
            JsonNode meta = tree.path("metadata");
            List<String> owners = new ArrayList<>();
            meta.path("ownerReferences").forEach(o -> {
                if (o.hasNonNull("uid")) {
                    owners.add(o.get("uid").asText());
                }
            });
            return new Identity(
                    tree.path("apiVersion").asText(null),
                    meta.path("namespace").asText(null),
                    meta.path("uid").asText(previous == null ? null : previous.uid()),
                    List.copyOf(owners));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            return new Identity(null, null, previous == null ? null : previous.uid(), List.of());
        }
    }

    @Override
    public void reset() {
        super.reset();
        indexLock.writeLock().lock();
        try {
            byKey.clear();
            byUid.clear();
            dependentsByOwner.clear();
            byPlural.clear();
            byPluralAndName.clear();
            podsByNode.clear();
        } finally {
            indexLock.writeLock().unlock();
        }
    }

    private static void add(Map<String, Map<AttributeSet, Stored>> index, String key, Stored s) {
        if (key != null) {
            index.computeIfAbsent(key, k -> new HashMap<>()).put(s.key(), s);
        }
    }

    private static void remove(Map<String, Map<AttributeSet, Stored>> index, String key, Stored s) {
        if (key == null) {
            return;
        }
        Map<AttributeSet, Stored> bucket = index.get(key);
        if (bucket != null) {
            bucket.remove(s.key());
            if (bucket.isEmpty()) {
                index.remove(key);
            }
        }
    }

    @SuppressWarnings("unchecked")
    private static String nodeName(GenericKubernetesResource resource, String json) {
        if (resource != null) {
            Object spec = resource.getAdditionalProperties().get("spec");
            Object node = spec instanceof Map<?, ?> m ? m.get("nodeName") : null;
            return node == null ? null : node.toString();
        }
        try {
            JsonNode node =
                    Serialization.jsonMapper().readTree(json).path("spec").path("nodeName");
            return node.isTextual() ? node.asText() : null;
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            return null;
        }
    }
}
