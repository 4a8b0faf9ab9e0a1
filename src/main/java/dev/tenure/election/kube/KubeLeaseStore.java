package dev.tenure.election.kube;

import dev.tenure.election.HolderProcess;
import dev.tenure.election.LeaseKey;
import dev.tenure.election.LeaseNotFound;
import dev.tenure.election.LeaseOwner;
import dev.tenure.election.LeaseRecord;
import dev.tenure.election.LeaseStore;
import dev.tenure.election.LeaseStoreException;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseSpec;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.logging.Logger;

/**
 * {@link LeaseStore} on {@code coordination.k8s.io/v1} Leases through fabric8. Updates are
 * conditional on the record's resourceVersion (PUT with metadata.resourceVersion: 409 on a stale
 * one); owner references map to {@link LeaseOwner}. Needs RBAC get/create/update/watch on leases.
 *
 * <p>A PUT replaces the whole object, and the core's record carries only the election state, so
 * every update is written onto the object last read at that resourceVersion (kept per lease from
 * reads, writes and watch events): labels, annotations, finalizers and owner references with their
 * controller/blockOwnerDeletion flags survive every renew. Owners the record adds are appended. When
 * no such object is at hand (a record from elsewhere), one read supplies the metadata first.
 *
 * <p>One file over ~400 lines, on purpose: get, create, update, watch and the per-lease object they all keep
 * (the metadata every PUT must carry) are one adapter over one cache; split, the cache would be shared between
 * classes that each could forget to update it.
 */
public final class KubeLeaseStore implements LeaseStore {
    private static final Logger LOG = Logger.getLogger(KubeLeaseStore.class.getName());
    private final KubernetesClient client;
    /** The object last seen per lease: what an update is written onto. */
    private final Map<LeaseKey, Lease> lastSeen = new ConcurrentHashMap<>();

    /** Kept on every lease this store writes a holder into; empty: none. */
    private final Optional<String> finalizer;
    /** The process this store writes as holder from, announced beside the holder; empty: none. */
    private final Optional<HolderProcess> self;
    /** The holder's clock reading of its first write as holder: the binding's {@code since}, once per process. */
    private final AtomicReference<Instant> since = new AtomicReference<>();

    public KubeLeaseStore(KubernetesClient client) {
        this(client, Optional.empty(), Optional.empty());
    }

    private KubeLeaseStore(KubernetesClient client, Optional<String> finalizer, Optional<HolderProcess> self) {
        this.client = client;
        this.finalizer = finalizer;
        this.self = self;
    }

    /**
     * A store that keeps {@code finalizer} on every lease it writes held, and lets it go with the release of a lease
     * whose deletion was requested: a delete of a held lease then becomes "deletion requested", which its holder sees
     * and answers by stopping its work before the Lease disappears (the operator's own lease).
     */
    public static KubeLeaseStore withFinalizer(KubernetesClient client, String finalizer) {
        return new KubeLeaseStore(client, Optional.of(finalizer), Optional.empty());
    }

    /**
     * This store, writing beside every record that names {@code process}'s identity as holder the annotation
     * {@link HolderProcess#ANNOTATION}: which pod and container hold the lease, and {@code since}, the renewTime of
     * this store's first write as holder (a reading of the holder's own clock while it ran). Contenders read it to
     * tie the holder to a container run ({@link KubeProcessEvidence}). Written in the same request as the holder, so
     * the two never disagree; a release leaves it, and a value naming another holder counts for nothing.
     */
    public KubeLeaseStore announcing(HolderProcess process) {
        return new KubeLeaseStore(client, finalizer, Optional.of(process));
    }

    /**
     * The process binding written beside {@code held} ({@link HolderProcess#ANNOTATION}), from the object this store
     * last saw at that record's resourceVersion, else from one read (empty when the lease has moved on since).
     */
    public Optional<HolderProcess> holderProcess(LeaseKey key, LeaseRecord held) {
        Lease lease = lastSeen.get(key);
        if (lease == null || !Objects.equals(lease.getMetadata().getResourceVersion(), held.resourceVersion())) {
            try {
                lease = client.resources(Lease.class)
                        .inNamespace(key.namespace())
                        .withName(key.name())
                        .get();
            } catch (RuntimeException e) {
                throw KubeErrors.map(key, e, false);
            }
            if (lease == null || !Objects.equals(lease.getMetadata().getResourceVersion(), held.resourceVersion())) {
                return Optional.empty();
            }
        }
        Map<String, String> annotations = lease.getMetadata().getAnnotations();
        return annotations == null ? Optional.empty() : HolderProcess.parse(annotations.get(HolderProcess.ANNOTATION));
    }

    @Override
    public LeaseRecord get(LeaseKey key) {
        Lease lease;
        try {
            lease = client.resources(Lease.class)
                    .inNamespace(key.namespace())
                    .withName(key.name())
                    .get();
        } catch (RuntimeException e) {
            throw KubeErrors.map(key, e, false);
        }
        if (lease == null) {
            lastSeen.remove(key);
            throw new LeaseNotFound(key, null);
        }
        return seen(key, lease);
    }

    @Override
    public LeaseRecord create(LeaseKey key, LeaseRecord record) {
        try {
            return seen(
                    key,
                    client.resource(announced(
                                    finalized(toLease(key, record.withResourceVersion(null)), record), record))
                            .create());
        } catch (RuntimeException e) {
            throw KubeErrors.map(key, e, true);
        }
    }

    @Override
    public LeaseRecord update(LeaseKey key, LeaseRecord record) {
        if (record.resourceVersion() == null) {
            throw new IllegalArgumentException(key + ": an update needs the resourceVersion it was read at");
        }
        try {
            return written(
                    key,
                    client.resource(announced(finalized(onto(base(key, record), key, record), record), record))
                            .update(),
                    record);
        } catch (RuntimeException e) {
            LeaseStoreException mapped = KubeErrors.map(key, e, false);
            if (mapped instanceof LeaseNotFound) {
                lastSeen.remove(key);
            }
            throw mapped;
        }
    }

    /**
     * {@link #update} written onto {@code base}, the object the record was read from (an informer's cached copy, which
     * this store has not seen): no read first. Conditional on the record's resourceVersion as every update.
     */
    public LeaseRecord update(LeaseKey key, LeaseRecord record, Lease base) {
        if (record.resourceVersion() == null) {
            throw new IllegalArgumentException(key + ": an update needs the resourceVersion it was read at");
        }
        try {
            return seen(key, client.resource(onto(base, key, record)).update());
        } catch (RuntimeException e) {
            throw KubeErrors.map(key, e, false);
        }
    }

    /**
     * Sets only {@code spec.preferredHolder}, by a JSON merge patch without a resourceVersion: a holder renews every
     * few seconds and a conditional update would keep losing to it, while preferredHolder is the coordination
     * controller's field that nobody else writes.
     */
    public LeaseRecord setPreferredHolder(LeaseKey key, String preferredHolder) {
        try {
            String patch = "{\"spec\":{\"preferredHolder\":"
                    + (preferredHolder == null
                            ? "null"
                            : "\"" + preferredHolder.replace("\\", "\\\\").replace("\"", "\\\"") + "\"")
                    + "}}";
            return seen(
                    key,
                    client.resources(Lease.class)
                            .inNamespace(key.namespace())
                            .withName(key.name())
                            .patch(PatchContext.of(PatchType.JSON_MERGE), patch));
        } catch (RuntimeException e) {
            throw KubeErrors.map(key, e, false);
        }
    }

    /**
     * {@code lease} with this store's finalizer while {@code record} names a holder, without it once released (which
     * lets a requested deletion finish). Other finalizers are kept.
     */
    private Lease finalized(Lease lease, LeaseRecord record) {
        if (finalizer.isEmpty()) {
            return lease;
        }
        List<String> finalizers = new ArrayList<>(
                lease.getMetadata().getFinalizers() == null
                        ? List.of()
                        : lease.getMetadata().getFinalizers());
        if (!record.hasHolder()) {
            finalizers.remove(finalizer.get()); // released: nobody's work depends on it any more
        } else if (!record.deletionRequested() && !finalizers.contains(finalizer.get())) {
            finalizers.add(finalizer.get()); // (no finalizer may be added to an object in deletion)
        }
        lease.getMetadata().setFinalizers(finalizers.isEmpty() ? null : finalizers);
        return lease;
    }

    /** {@code lease} with this process's binding when {@code record} names it holder (see {@link #announcing}). */
    private Lease announced(Lease lease, LeaseRecord record) {
        if (self.isEmpty() || !record.isHeldBy(self.get().identity()) || record.renewTime() == null) {
            return lease;
        }
        Instant first = since.updateAndGet(v -> v == null ? record.renewTime() : v);
        Map<String, String> annotations = new java.util.LinkedHashMap<>(
                lease.getMetadata().getAnnotations() == null
                        ? Map.of()
                        : lease.getMetadata().getAnnotations());
        annotations.put(HolderProcess.ANNOTATION, self.get().withSince(first).format());
        lease.getMetadata().setAnnotations(annotations);
        return lease;
    }

    private LeaseRecord seen(LeaseKey key, Lease lease) {
        lastSeen.put(key, lease);
        return toRecord(lease);
    }

    /**
     * What an update wrote: the object as answered, or — when the answer has no object because the write let a
     * requested deletion finish (its last finalizer removed) — the record written, on a lease now gone.
     */
    private LeaseRecord written(LeaseKey key, Lease answer, LeaseRecord record) {
        if (answer == null) {
            lastSeen.remove(key);
            return record;
        }
        return seen(key, answer);
    }

    /** The object the update is written onto: the one seen at the record's resourceVersion, else a fresh read. */
    private Lease base(LeaseKey key, LeaseRecord record) {
        Lease seen = lastSeen.get(key);
        if (seen != null && record.resourceVersion().equals(seen.getMetadata().getResourceVersion())) {
            return seen;
        }
        Lease current = client.resources(Lease.class)
                .inNamespace(key.namespace())
                .withName(key.name())
                .get();
        if (current == null) {
            lastSeen.remove(key);
            throw new LeaseNotFound(key, null);
        }
        lastSeen.put(key, current);
        return current;
    }

    @Override
    public LeaseWatch watch(LeaseKey key, Consumer<Optional<LeaseRecord>> listener) {
        WatchHandle handle = new WatchHandle(key, listener);
        handle.open();
        return handle;
    }

    /** One watch on one Lease, reopened when the server closes it with an error. */
    private final class WatchHandle implements LeaseWatch, Watcher<Lease> {
        private final LeaseKey key;
        private final Consumer<Optional<LeaseRecord>> listener;
        private volatile Watch watch;
        private volatile boolean closed;

        WatchHandle(LeaseKey key, Consumer<Optional<LeaseRecord>> listener) {
            this.key = key;
            this.listener = listener;
        }

        void open() {
            watch = client.resources(Lease.class)
                    .inNamespace(key.namespace())
                    .withName(key.name())
                    .watch(this);
        }

        @Override
        public void eventReceived(Action action, Lease lease) {
            switch (action) {
                case ADDED, MODIFIED -> listener.accept(Optional.of(seen(key, lease)));
                case DELETED -> {
                    lastSeen.remove(key);
                    listener.accept(Optional.empty());
                }
                default -> {}
            }
        }

        @Override
        public void onClose(WatcherException cause) {
            if (closed) {
                return;
            }
            LOG.info("watch on lease " + key + " closed (" + cause.getMessage()
                    + "), reopening; polling covers the gap");
            try {
                open();
            } catch (RuntimeException e) {
                LOG.warning("cannot reopen watch on lease " + key + ": " + e.getMessage());
            }
        }

        @Override
        public void close() {
            closed = true;
            Watch w = watch;
            if (w != null) {
                w.close();
            }
        }
    }

    // ------------------------------------------------------------------ mapping

    /** The election state of a Lease (any copy: a read, an event, an informer's cache). */
    public static LeaseRecord toRecord(Lease lease) {
        LeaseSpec s = lease.getSpec() == null ? new LeaseSpec() : lease.getSpec();
        List<LeaseOwner> owners = lease.getMetadata().getOwnerReferences() == null
                ? List.of()
                : lease.getMetadata().getOwnerReferences().stream()
                        .filter(o -> o.getUid() != null && !o.getUid().isBlank())
                        .map(o -> new LeaseOwner(o.getApiVersion(), o.getKind(), o.getName(), o.getUid()))
                        .toList();
        return new LeaseRecord(
                s.getHolderIdentity(),
                s.getLeaseDurationSeconds(),
                instant(s.getAcquireTime()),
                instant(s.getRenewTime()),
                s.getLeaseTransitions() == null ? 0 : s.getLeaseTransitions(),
                s.getStrategy(),
                s.getPreferredHolder(),
                owners,
                lease.getMetadata().getResourceVersion(),
                lease.getMetadata().getDeletionTimestamp() != null);
    }

    static Lease toLease(LeaseKey key, LeaseRecord r) {
        Lease lease = new Lease();
        lease.setMetadata(new ObjectMetaBuilder()
                .withNamespace(key.namespace())
                .withName(key.name())
                .withResourceVersion(r.resourceVersion())
                .withOwnerReferences(
                        r.owners().isEmpty()
                                ? null
                                : r.owners().stream()
                                        .map(KubeLeaseStore::ownerReference)
                                        .toList())
                .build());
        LeaseSpec s = new LeaseSpec();
        s.setHolderIdentity(r.holderIdentity().isEmpty() ? null : r.holderIdentity());
        s.setLeaseDurationSeconds(r.leaseDurationSeconds());
        s.setAcquireTime(zoned(r.acquireTime()));
        s.setRenewTime(zoned(r.renewTime()));
        s.setLeaseTransitions(r.leaseTransitions());
        s.setStrategy(r.strategy());
        s.setPreferredHolder(r.preferredHolder());
        lease.setSpec(s);
        return lease;
    }

    /**
     * {@code base} with the record's election state: metadata kept whole (labels, annotations, finalizers,
     * owner references with their flags) but for the resourceVersion the write is conditional on, and owners
     * the record has that the object lacks appended.
     */
    static Lease onto(Lease base, LeaseKey key, LeaseRecord r) {
        Lease lease = toLease(key, r);
        ObjectMeta meta = new ObjectMetaBuilder(base.getMetadata())
                .withResourceVersion(r.resourceVersion())
                .build();
        List<OwnerReference> owners =
                new ArrayList<>(meta.getOwnerReferences() == null ? List.of() : meta.getOwnerReferences());
        for (LeaseOwner o : r.owners()) {
            if (owners.stream().noneMatch(existing -> o.uid().equals(existing.getUid()))) {
                owners.add(ownerReference(o));
            }
        }
        meta.setOwnerReferences(owners.isEmpty() ? null : owners);
        lease.setMetadata(meta);
        return lease;
    }

    static OwnerReference ownerReference(LeaseOwner o) {
        return new OwnerReferenceBuilder()
                .withApiVersion(o.apiVersion())
                .withKind(o.kind())
                .withName(o.name())
                .withUid(o.uid())
                .build();
    }

    private static Instant instant(ZonedDateTime t) {
        return t == null ? null : t.toInstant();
    }

    private static ZonedDateTime zoned(Instant t) {
        return t == null ? null : t.atZone(ZoneOffset.UTC);
    }
}
