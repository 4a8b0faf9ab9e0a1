package dev.tenure.testsupport;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import java.time.Clock;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Fluent seeding of the emulated cluster, written straight into the store (no request log entries):
 * <pre>
 * seed.node("w1").role("worker").create();
 * seed.deployment("web").namespace("app").replicas(3).onNodes("w1", "w2").create();
 * seed.pdb("web").namespace("app").selector("app", "web").minAvailable(2).create();
 * </pre>
 * Namespaces are created on first use. Names of generated pods are deterministic.
 */
public final class ClusterSeed {
    /** Annotation the kubelet puts on mirror pods of static pods (kubectl drain skips them). */
    public static final String MIRROR_ANNOTATION = "kubernetes.io/config.mirror";

    private static final String PAUSE_IMAGE = "registry.k8s.io/pause:3.10";

    private final ClusterStore store;
    private final KubeletSimulator kubelets;
    private final Clock clock;

    /** Held while a workload and its pods are created, so a living cluster's controllers see them together. */
    private final java.util.concurrent.locks.Lock workloads;

    ClusterSeed(ClusterStore store, KubeletSimulator kubelets, Clock clock, java.util.concurrent.locks.Lock workloads) {
        this.workloads = workloads;
        this.store = store;
        this.kubelets = kubelets;
        this.clock = clock;
    }

    /** Creates the namespace if absent. */
    public Namespace namespace(String name) {
        return store.get("/api/v1/namespaces/" + name, Namespace.class)
                .orElseGet(() -> store.create(new NamespaceBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .endMetadata()
                        .withNewStatus()
                        .withPhase("Active")
                        .endStatus()
                        .build()));
    }

    public NodeSeed node(String name) {
        return new NodeSeed(name);
    }

    /** Pods owned by a ReplicaSet owned by a Deployment. */
    public WorkloadSeed deployment(String name) {
        return new WorkloadSeed(name, Kind.DEPLOYMENT);
    }

    /** Pods name-0..name-(n-1) owned by a StatefulSet. */
    public WorkloadSeed statefulSet(String name) {
        return new WorkloadSeed(name, Kind.STATEFUL_SET);
    }

    /** One pod per node given with onNodes (default: every node), owned by a DaemonSet. */
    public WorkloadSeed daemonSet(String name) {
        return new WorkloadSeed(name, Kind.DAEMON_SET);
    }

    /** One unmanaged pod (no owner) named {@code name}. */
    public WorkloadSeed pod(String name) {
        return new WorkloadSeed(name, Kind.UNMANAGED);
    }

    /** One mirror pod (static pod shown by the kubelet; annotation kubernetes.io/config.mirror, owner Node). */
    public WorkloadSeed mirrorPod(String name) {
        return new WorkloadSeed(name, Kind.MIRROR);
    }

    public PdbSeed pdb(String name) {
        return new PdbSeed(name);
    }

    /** Any other object, as is (namespace created on first use). */
    public <T extends HasMetadata> T object(T object) {
        if (object.getMetadata().getNamespace() != null) {
            namespace(object.getMetadata().getNamespace());
        }
        return store.create(object);
    }

    /** The {@code make run} demo: 3 workers, 1 control plane, 2 Deployments, 1 StatefulSet, 1 DaemonSet, 1 PDB. */
    public void demo() {
        node("cp1")
                .role("control-plane")
                .taint("node-role.kubernetes.io/control-plane", "", "NoSchedule")
                .create();
        for (String w : List.of("w1", "w2", "w3")) {
            node(w).role("worker").create();
        }
        deployment("web")
                .namespace("shop")
                .replicas(6)
                .onNodes("w1", "w2", "w3")
                .create();
        deployment("api")
                .namespace("shop")
                .replicas(4)
                .onNodes("w1", "w2", "w3")
                .emptyDir()
                .create();
        statefulSet("db")
                .namespace("shop")
                .replicas(3)
                .onNodes("w1", "w2", "w3")
                .gracePeriod(60)
                .create();
        daemonSet("node-agent")
                .namespace("kube-system")
                .onNodes("cp1", "w1", "w2", "w3")
                .create();
        mirrorPod("kube-apiserver-cp1").namespace("kube-system").onNodes("cp1").create();
        pdb("web").namespace("shop").selector("app", "web").minAvailable("50%").create();
    }

    // ---- nodes ---------------------------------------------------------------------------------------------------

    public final class NodeSeed {
        private final String name;
        private final Map<String, String> labels = new LinkedHashMap<>();
        private final List<Taint> taints = new ArrayList<>();
        private boolean unschedulable;
        private boolean ready = true;

        private NodeSeed(String name) {
            this.name = name;
            labels.put("kubernetes.io/hostname", hostname(name));
            labels.put("kubernetes.io/os", "linux");
        }

        /**
         * The kubelet's hostname label: the host's name, a label value (at most 63 characters), so a node named with
         * more than that (object names go to 253) carries the first 63, as a real node's hostname label would; a label
         * value over 63 is refused by kube-apiserver on every write of the node, a cordon patch included.
         */
        private static String hostname(String nodeName) {
            String host = nodeName.length() <= 63 ? nodeName : nodeName.substring(0, 63);
            return host.replaceAll("[^A-Za-z0-9]+$", "");
        }

        /** Adds label node-role.kubernetes.io/&lt;role&gt;="" for each role. */
        public NodeSeed role(String... roles) {
            for (String r : roles) {
                labels.put("node-role.kubernetes.io/" + r, "");
            }
            return this;
        }

        public NodeSeed label(String key, String value) {
            labels.put(key, value);
            return this;
        }

        public NodeSeed taint(String key, String value, String effect) {
            taints.add(new TaintBuilder()
                    .withKey(key)
                    .withValue(value)
                    .withEffect(effect)
                    .build());
            return this;
        }

        /** Already cordoned. */
        public NodeSeed unschedulable() {
            this.unschedulable = true;
            return this;
        }

        /** Condition Ready=False. */
        public NodeSeed notReady() {
            this.ready = false;
            return this;
        }

        public Node create() {
            String now = now();
            NodeCondition readyCondition = new NodeConditionBuilder()
                    .withType("Ready")
                    .withStatus(ready ? "True" : "False")
                    .withReason(ready ? "KubeletReady" : "KubeletNotReady")
                    .withMessage(ready ? "kubelet is posting ready status" : "container runtime is down")
                    .withLastHeartbeatTime(now)
                    .withLastTransitionTime(now)
                    .build();
            Node node = store.create(new NodeBuilder()
                    .withNewMetadata()
                    .withName(name)
                    .withLabels(labels)
                    .endMetadata()
                    .withNewSpec()
                    .withUnschedulable(unschedulable ? true : null)
                    .withTaints(taints)
                    .endSpec()
                    .withNewStatus()
                    .withConditions(readyCondition)
                    .addNewAddress()
                    .withType("InternalIP")
                    .withAddress("10.0.0." + (Math.floorMod(name.hashCode(), 250) + 1))
                    .endAddress()
                    .addToCapacity("cpu", new Quantity("4"))
                    .addToCapacity("memory", new Quantity("16Gi"))
                    .addToCapacity("pods", new Quantity("110"))
                    .addToAllocatable("cpu", new Quantity("4"))
                    .addToAllocatable("memory", new Quantity("16Gi"))
                    .addToAllocatable("pods", new Quantity("110"))
                    .withNewNodeInfo()
                    .withKubeletVersion("v1.32.0")
                    .withBootID(EmulatedCluster.bootId(name, 0))
                    .withOsImage("Debian GNU/Linux 12 (bookworm)")
                    .withOperatingSystem("linux")
                    .withArchitecture("amd64")
                    .withContainerRuntimeVersion("containerd://1.7.0")
                    .endNodeInfo()
                    .endStatus()
                    .build());
            kubelets.registered(node);
            return node;
        }
    }

    // ---- workloads and pods ----------------------------------------------------------------------------------

    private enum Kind {
        DEPLOYMENT,
        STATEFUL_SET,
        DAEMON_SET,
        UNMANAGED,
        MIRROR
    }

    public final class WorkloadSeed {
        private final String name;
        private final Kind kind;
        private String namespace = "default";
        private int replicas = 1;
        private List<String> nodes = List.of();
        private final Map<String, String> labels = new LinkedHashMap<>();
        private final Map<String, String> annotations = new LinkedHashMap<>();
        private final Map<String, String> nodeSelector = new LinkedHashMap<>();
        private boolean ready = true;
        private String phase = "Running";
        private Long gracePeriodSeconds = 30L;
        private boolean emptyDir;
        private String claim;
        private boolean terminating;

        private WorkloadSeed(String name, Kind kind) {
            this.name = name;
            this.kind = kind;
            labels.put("app", name);
        }

        public WorkloadSeed namespace(String namespace) {
            this.namespace = namespace;
            return this;
        }

        /** Number of pods (ignored by daemonSet: one per node). */
        public WorkloadSeed replicas(int replicas) {
            this.replicas = replicas;
            return this;
        }

        /** Nodes the pods run on, round-robin; none = unscheduled (Pending) pods, except for daemonSet (all). */
        public WorkloadSeed onNodes(String... nodes) {
            this.nodes = List.of(nodes);
            return this;
        }

        /** Same as onNodes(node). */
        public WorkloadSeed onNode(String node) {
            return onNodes(node);
        }

        /** Extra pod label (pods always carry app=&lt;name&gt;). */
        public WorkloadSeed label(String key, String value) {
            labels.put(key, value);
            return this;
        }

        /** A pod and template nodeSelector entry: a living cluster's scheduler binds replacements only to such nodes. */
        public WorkloadSeed nodeSelector(String key, String value) {
            nodeSelector.put(key, value);
            return this;
        }

        public WorkloadSeed annotation(String key, String value) {
            annotations.put(key, value);
            return this;
        }

        /** Pods Running but condition Ready=False. */
        public WorkloadSeed notReady() {
            this.ready = false;
            return this;
        }

        /** Pod phase (default Running; Succeeded/Failed pods are never Ready). */
        public WorkloadSeed phase(String phase) {
            this.phase = phase;
            if (!phase.equals("Running")) {
                this.ready = false;
            }
            return this;
        }

        /** spec.terminationGracePeriodSeconds (default 30). */
        public WorkloadSeed gracePeriod(long seconds) {
            this.gracePeriodSeconds = seconds;
            return this;
        }

        /** Pods mount the PersistentVolumeClaim {@code claimName} of their namespace (volume "data"). */
        public WorkloadSeed claim(String claimName) {
            this.claim = claimName;
            return this;
        }

        /** Pods mount an emptyDir volume ("scratch"). */
        public WorkloadSeed emptyDir() {
            this.emptyDir = true;
            return this;
        }

        /** Pods already terminating (deletionTimestamp set); the kubelets finish them after their grace. */
        public WorkloadSeed terminating() {
            this.terminating = true;
            return this;
        }

        /** Absolute time the kubelet takes to stop these pods once terminating (instead of scaled grace). */
        public WorkloadSeed terminationDelay(Duration delay) {
            annotations.put(KubeletSimulator.TERMINATION_DELAY_ANNOTATION, Long.toString(delay.toMillis()));
            return this;
        }

        /** Creates the owner chain and the pods; returns the pods as stored. */
        public List<Pod> create() {
            workloads.lock();
            try {
                return createAll();
            } finally {
                workloads.unlock();
            }
        }

        private List<Pod> createAll() {
            ClusterSeed.this.namespace(namespace); // the seed's, not this builder's setter of the same name
            List<Pod> pods = new ArrayList<>();
            Random names = new Random((namespace + "/" + name).hashCode());
            switch (kind) {
                case DEPLOYMENT -> {
                    var deployment = store.create(new DeploymentBuilder()
                            .withNewMetadata()
                            .withName(name)
                            .withNamespace(namespace)
                            .withLabels(Map.of("app", name))
                            .endMetadata()
                            .withNewSpec()
                            .withReplicas(replicas)
                            .withNewSelector()
                            .withMatchLabels(Map.of("app", name))
                            .endSelector()
                            .withNewTemplate()
                            .withNewMetadata()
                            .withLabels(labels)
                            .endMetadata()
                            .withNewSpec()
                            .withNodeSelector(nodeSelector.isEmpty() ? null : new LinkedHashMap<>(nodeSelector))
                            .addNewContainer()
                            .withName("main")
                            .withImage(PAUSE_IMAGE)
                            .endContainer()
                            .endSpec()
                            .endTemplate()
                            .endSpec()
                            .build());
                    String hash = suffix(names, 10);
                    ReplicaSet rs = store.create(new ReplicaSetBuilder()
                            .withNewMetadata()
                            .withName(name + "-" + hash)
                            .withNamespace(namespace)
                            .withLabels(Map.of("app", name, "pod-template-hash", hash))
                            .withOwnerReferences(owner(deployment))
                            .endMetadata()
                            .withNewSpec()
                            .withReplicas(replicas)
                            .withNewSelector()
                            .withMatchLabels(Map.of("app", name, "pod-template-hash", hash))
                            .endSelector()
                            .endSpec()
                            .build());
                    Map<String, String> podLabels = new LinkedHashMap<>(labels);
                    podLabels.put("pod-template-hash", hash);
                    for (int i = 0; i < replicas; i++) {
                        pods.add(pod(
                                rs.getMetadata().getName() + "-" + suffix(names, 5), nodeAt(i), podLabels, owner(rs)));
                    }
                    rs.setStatus(new io.fabric8.kubernetes.api.model.apps.ReplicaSetStatusBuilder()
                            .withReplicas(terminating ? 0 : replicas)
                            .withFullyLabeledReplicas(terminating ? 0 : replicas)
                            .withReadyReplicas(readySeeded())
                            .withAvailableReplicas(readySeeded())
                            .withObservedGeneration(rs.getMetadata().getGeneration())
                            .build());
                    store.update(ClusterStore.path(rs) + "/status", rs);
                }
                case STATEFUL_SET -> {
                    var sts = store.create(new StatefulSetBuilder()
                            .withNewMetadata()
                            .withName(name)
                            .withNamespace(namespace)
                            .withLabels(Map.of("app", name))
                            .endMetadata()
                            .withNewSpec()
                            .withReplicas(replicas)
                            .withServiceName(name)
                            .withNewSelector()
                            .withMatchLabels(Map.of("app", name))
                            .endSelector()
                            .withNewTemplate()
                            .withNewMetadata()
                            .withLabels(labels)
                            .endMetadata()
                            .withNewSpec()
                            .withNodeSelector(nodeSelector.isEmpty() ? null : new LinkedHashMap<>(nodeSelector))
                            .addNewContainer()
                            .withName("main")
                            .withImage(PAUSE_IMAGE)
                            .endContainer()
                            .endSpec()
                            .endTemplate()
                            .endSpec()
                            .build());
                    for (int i = 0; i < replicas; i++) {
                        Map<String, String> podLabels = new LinkedHashMap<>(labels);
                        podLabels.put("statefulset.kubernetes.io/pod-name", name + "-" + i);
                        pods.add(pod(name + "-" + i, nodeAt(i), podLabels, owner(sts)));
                    }
                    sts.setStatus(new io.fabric8.kubernetes.api.model.apps.StatefulSetStatusBuilder()
                            .withReplicas(terminating ? 0 : replicas)
                            .withReadyReplicas(readySeeded())
                            .withAvailableReplicas(readySeeded())
                            .withCurrentReplicas(terminating ? 0 : replicas)
                            .withUpdatedReplicas(terminating ? 0 : replicas)
                            .withObservedGeneration(sts.getMetadata().getGeneration())
                            .build());
                    store.update(ClusterStore.path(sts) + "/status", sts);
                }
                case DAEMON_SET -> {
                    var ds = store.create(new DaemonSetBuilder()
                            .withNewMetadata()
                            .withName(name)
                            .withNamespace(namespace)
                            .withLabels(Map.of("app", name))
                            .endMetadata()
                            .withNewSpec()
                            .withNewSelector()
                            .withMatchLabels(Map.of("app", name))
                            .endSelector()
                            .withNewTemplate()
                            .withNewMetadata()
                            .withLabels(labels)
                            .endMetadata()
                            .withNewSpec()
                            .withNodeSelector(nodeSelector.isEmpty() ? null : new LinkedHashMap<>(nodeSelector))
                            .addNewContainer()
                            .withName("main")
                            .withImage(PAUSE_IMAGE)
                            .endContainer()
                            .endSpec()
                            .endTemplate()
                            .endSpec()
                            .build());
                    List<String> on = nodes.isEmpty()
                            ? store.list("/api/v1/nodes", Node.class).stream()
                                    .map(n -> n.getMetadata().getName())
                                    .toList()
                            : nodes;
                    for (String node : on) {
                        pods.add(pod(name + "-" + suffix(names, 5), node, labels, owner(ds)));
                    }
                }
                case UNMANAGED -> {
                    for (int i = 0; i < replicas; i++) {
                        pods.add(pod(replicas == 1 ? name : name + "-" + i, nodeAt(i), labels, null));
                    }
                }
                case MIRROR -> {
                    String node = nodeAt(0);
                    Node owner = store.get("/api/v1/nodes/" + node, Node.class).orElse(null);
                    annotations.put(MIRROR_ANNOTATION, suffix(names, 32));
                    OwnerReference ref = owner == null
                            ? null
                            : new OwnerReferenceBuilder()
                                    .withApiVersion("v1")
                                    .withKind("Node")
                                    .withName(node)
                                    .withUid(owner.getMetadata().getUid())
                                    .withController(true)
                                    .build();
                    pods.add(pod(name, node, labels, ref));
                }
                default -> throw new IllegalStateException(kind.toString());
            }
            return pods;
        }

        /**
         * The Ready pods a ReplicaSet's or StatefulSet's controller would count for these seeded pods: its status as
         * written when they were seeded. Without a living cluster nothing updates it afterwards (as when
         * kube-controller-manager is down); a living one recomputes it every round.
         */
        private int readySeeded() {
            return !terminating && !nodes.isEmpty() && ready && "Running".equals(phase) ? replicas : 0;
        }

        private String nodeAt(int i) {
            return nodes.isEmpty() ? null : nodes.get(i % nodes.size());
        }

        private Pod pod(String podName, String node, Map<String, String> podLabels, OwnerReference owner) {
            String now = now();
            boolean scheduled = node != null;
            String podPhase = scheduled ? phase : "Pending";
            boolean podReady = scheduled && ready && podPhase.equals("Running");
            PodBuilder b = new PodBuilder()
                    .withNewMetadata()
                    .withName(podName)
                    .withNamespace(namespace)
                    .withLabels(podLabels)
                    .withAnnotations(annotations.isEmpty() ? null : new LinkedHashMap<>(annotations))
                    .withOwnerReferences(owner == null ? List.of() : List.of(owner))
                    .endMetadata()
                    .withNewSpec()
                    .withNodeName(node)
                    .withNodeSelector(nodeSelector.isEmpty() ? null : new LinkedHashMap<>(nodeSelector))
                    .withTerminationGracePeriodSeconds(gracePeriodSeconds)
                    .addNewContainer()
                    .withName("main")
                    .withImage(PAUSE_IMAGE)
                    .endContainer()
                    .endSpec()
                    .withNewStatus()
                    .withPhase(podPhase)
                    .addNewCondition()
                    .withType("PodScheduled")
                    .withStatus(scheduled ? "True" : "False")
                    .withLastTransitionTime(now)
                    .endCondition()
                    .addNewCondition()
                    .withType("Ready")
                    .withStatus(podReady ? "True" : "False")
                    .withLastTransitionTime(now)
                    .endCondition()
                    .endStatus();
            if (emptyDir) {
                b.editSpec()
                        .addNewVolume()
                        .withName("scratch")
                        .withNewEmptyDir()
                        .endEmptyDir()
                        .endVolume()
                        .editFirstContainer()
                        .addNewVolumeMount()
                        .withName("scratch")
                        .withMountPath("/scratch")
                        .endVolumeMount()
                        .endContainer()
                        .endSpec();
            }
            if (claim != null) {
                b.editSpec()
                        .addNewVolume()
                        .withName("data")
                        .withNewPersistentVolumeClaim()
                        .withClaimName(claim)
                        .endPersistentVolumeClaim()
                        .endVolume()
                        .endSpec();
            }
            Pod pod = store.create(b.build());
            if (terminating) {
                long grace = gracePeriodSeconds == null ? 30 : gracePeriodSeconds;
                pod = kubelets.terminate(pod, grace);
            }
            return pod;
        }
    }

    // ---- PodDisruptionBudgets ------------------------------------------------------------------------------

    public final class PdbSeed {
        private final String name;
        private String namespace = "default";
        private final Map<String, String> matchLabels = new LinkedHashMap<>();
        private IntOrString minAvailable;
        private IntOrString maxUnavailable;
        private String unhealthyPodEvictionPolicy;

        private PdbSeed(String name) {
            this.name = name;
        }

        public PdbSeed namespace(String namespace) {
            this.namespace = namespace;
            return this;
        }

        /** Adds a matchLabels entry (none at all = an empty selector, which selects every pod). */
        public PdbSeed selector(String key, String value) {
            matchLabels.put(key, value);
            return this;
        }

        public PdbSeed minAvailable(int pods) {
            this.minAvailable = new IntOrString(pods);
            return this;
        }

        /** A percentage such as "50%". */
        public PdbSeed minAvailable(String percent) {
            this.minAvailable = new IntOrString(percent);
            return this;
        }

        public PdbSeed maxUnavailable(int pods) {
            this.maxUnavailable = new IntOrString(pods);
            return this;
        }

        /** A percentage such as "25%". */
        public PdbSeed maxUnavailable(String percent) {
            this.maxUnavailable = new IntOrString(percent);
            return this;
        }

        /** IfHealthyBudget (default) or AlwaysAllow. */
        public PdbSeed unhealthyPodEvictionPolicy(String policy) {
            this.unhealthyPodEvictionPolicy = policy;
            return this;
        }

        public PodDisruptionBudget create() {
            ClusterSeed.this.namespace(namespace); // the seed's, not this builder's setter of the same name
            return store.create(new PodDisruptionBudgetBuilder()
                    .withNewMetadata()
                    .withName(name)
                    .withNamespace(namespace)
                    .endMetadata()
                    .withNewSpec()
                    .withNewSelector()
                    .withMatchLabels(matchLabels)
                    .endSelector()
                    .withMinAvailable(minAvailable)
                    .withMaxUnavailable(maxUnavailable)
                    .withUnhealthyPodEvictionPolicy(unhealthyPodEvictionPolicy)
                    .endSpec()
                    .build());
        }
    }

    // ---- helpers ---------------------------------------------------------------------------------------------

    private static OwnerReference owner(HasMetadata owner) {
        return new OwnerReferenceBuilder()
                .withApiVersion(owner.getApiVersion())
                .withKind(owner.getKind())
                .withName(owner.getMetadata().getName())
                .withUid(owner.getMetadata().getUid())
                .withController(true)
                .withBlockOwnerDeletion(true)
                .build();
    }

    private static String suffix(Random random, int length) {
        String alphabet = "bcdfghjklmnpqrstvwxz2456789";
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < length; i++) {
            sb.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return sb.toString();
    }

    private String now() {
        return ZonedDateTime.now(clock).truncatedTo(ChronoUnit.SECONDS).format(DateTimeFormatter.ISO_INSTANT);
    }
}
