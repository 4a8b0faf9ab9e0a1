package dev.tenure.maintenance.door;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.maintenance.MaintenanceOperatorRig;
import dev.tenure.maintenance.admission.MaintenanceLimits;
import dev.tenure.maintenance.admission.NodeMaintenanceValidator;
import dev.tenure.maintenance.api.MalformedFields;
import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.NodeMaintenanceStatus;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.machine.NodeMarks;
import dev.tenure.testsupport.EmulatedCluster;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.stream.Collectors;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.Tag;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.AfterProperty;
import net.jqwik.api.lifecycle.AfterTry;
import net.jqwik.api.lifecycle.BeforeContainer;
import net.jqwik.api.lifecycle.BeforeTry;

/**
 * Issue 38's generated-input suite at the NodeMaintenance door: random specs (valid, invalid and extreme: every
 * duration form the CRD pattern admits and some it does not, integers at and past int32 and int64, unicode, names of
 * 253 characters) and random foreign status patches, sent as raw JSON to one emulated cluster (which enforces the CRD
 * schema and its CEL rules, like kube-apiserver) with one operator ({@link MaintenanceOperatorRig},
 * max-nodes-in-maintenance=1). Per case:
 *
 * <ul>
 *   <li>the API server refuses it (a 4xx: recorded, and no object exists), or the object reaches a settled phase
 *       with a named reason (status.lastError or a condition's reason) and at least one Event naming it, within
 *       {@link #SETTLE};
 *   <li>after the object is deleted, no node is cordoned or carries Tenure's taint unless its
 *       {@link NodeMarks#CONDITION_TYPE} condition says why;
 *   <li>the operator logs no error and no exception ({@link #PROBLEMS}, a handler on the root logger).
 * </ul>
 *
 * <p>And the queue: with the only slot held, a few requests (random priorities, one of them perhaps for the only
 * control-plane node, which its budget never admits) wait; when the slot frees, the first admissible one in
 * {@link NodeMaintenanceValidator#QUEUE_ORDER} gets it and no other.
 *
 * <p>Tries: each is one or more round trips through the operator (about 0.3 to 1 s), so the properties give their own
 * {@code tries} rather than the pom's {@code jqwik.tries.default} (for the in-memory models): {@link
 * #SPEC_TRIES} and {@link #QUEUE_TRIES} keep the class well under two minutes in {@code make test}. A failure prints
 * jqwik's seed ({@code seed = ...} in the report); rerun it with {@code @Property(seed = "...")}. Shrinking is off: a
 * shrink step is another round trip, and the generated case is printed whole.
 */
@Tag("e2e")
class GeneratedInputIT {

    /** Specs (and status patches) per run. */
    static final int SPEC_TRIES = 60;
    /** Queues per run: each holds a slot, queues up to four requests and frees the slot. */
    static final int QUEUE_TRIES = 6;

    static final Duration SETTLE = Duration.ofSeconds(15);
    static final String API_VERSION = NodeMaintenance.GROUP + "/" + NodeMaintenance.VERSION;
    static final String LONG_NODE = ("n" + "0123456789abcdef".repeat(16)).substring(0, 253);
    static final List<String> WORKERS = List.of("w1", "w2", "w3", "w4", "w5", LONG_NODE);
    static final Set<Phase> SETTLED =
            EnumSet.of(Phase.Pending, Phase.Scheduled, Phase.Waiting, Phase.Succeeded, Phase.Failed, Phase.Ended);

    static MaintenanceOperatorRig rig;
    static KubernetesClient client;

    /** Errors and exceptions the operator logged (not the emulated cluster's own logs). */
    static final List<String> PROBLEMS = new CopyOnWriteArrayList<>();
    /** How cases ended, for the report: refused by the API server (and its message head), or a phase. */
    static final Map<String, Integer> OUTCOMES = new ConcurrentHashMap<>();

    /** Records the handler saw from the operator's loggers, at any level: proof that it listens where they log. */
    static final java.util.concurrent.atomic.AtomicInteger SEEN = new java.util.concurrent.atomic.AtomicInteger();

    static final Handler CAPTURE = new Handler() {
        @Override
        public void publish(LogRecord r) {
            String logger = r.getLoggerName() == null ? "" : r.getLoggerName();
            if (logger.startsWith("dev.tenure.maintenance") || logger.startsWith("io.javaoperatorsdk")) {
                SEEN.incrementAndGet();
            }
            boolean ours = (logger.startsWith("dev.tenure") && !logger.startsWith("dev.tenure.testsupport"))
                    || logger.startsWith("io.javaoperatorsdk");
            if (ours && (r.getLevel().intValue() >= Level.SEVERE.intValue() || r.getThrown() != null)) {
                PROBLEMS.add(r.getLevel() + " " + logger + ": " + r.getMessage()
                        + (r.getThrown() == null ? "" : " / " + r.getThrown()));
            }
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    };

    @BeforeContainer
    static void start() {
        java.util.logging.Logger.getLogger("").addHandler(CAPTURE);
        rig = MaintenanceOperatorRig.start(
                EmulatedCluster.Options.forTests(),
                MaintenanceLifecycleIT.SETTINGS,
                Clock.systemUTC(),
                new MaintenanceLimits(OptionalInt.of(1), OptionalInt.empty()),
                Duration.ofSeconds(5),
                WORKERS.toArray(String[]::new));
        rig.cluster.seed().node("cp1").role("control-plane").create();
        client = rig.client;
        assertSchemaEnforced();
    }

    /** The rig stores the CRD generated from the API types; the emulated API server enforces its schema. */
    static void assertSchemaEnforced() {
        // enforced: a boolean field given a string is refused, not stored
        assertThat(create("g-schema-probe", fields("nodeName", "w1", "join", "yes")))
                .as("the emulated API server enforces the CRD schema")
                .hasValueSatisfying(r -> assertThat(r).startsWith("422"));
    }

    @AfterContainer
    static void stop() {
        java.util.logging.Logger.getLogger("").removeHandler(CAPTURE);
        if (rig != null) {
            rig.close();
        }
        System.out.println("GeneratedInputIT outcomes: " + new java.util.TreeMap<>(OUTCOMES)
                + "; operator log records seen: " + SEEN.get());
    }

    @BeforeTry
    void noProblemsYet() {
        PROBLEMS.clear();
    }

    @AfterTry
    void everythingDeleted() {
        for (GenericKubernetesResource nm : resources().list().getItems()) {
            resources().withName(nm.getMetadata().getName()).delete();
        }
        await().atMost(SETTLE).until(() -> resources().list().getItems().isEmpty());
    }

    @AfterProperty
    void report() {
        System.out.println("GeneratedInputIT outcomes so far: " + new java.util.TreeMap<>(OUTCOMES));
    }

    // ---- the spec property ------------------------------------------------------------------------------------

    record Case(String name, Map<String, Object> spec, Optional<Map<String, Object>> statusPatch) {
        @Override
        public String toString() {
            return "name=" + name + " (" + name.length() + " chars)\nspec=" + json(spec) + "\nstatus patch="
                    + statusPatch.map(GeneratedInputIT::json).orElse("none");
        }
    }

    @Property(tries = SPEC_TRIES, shrinking = ShrinkingMode.OFF)
    void everyRequestEndsNamedAndLeavesNoNodeMarked(@ForAll("cases") Case c) {
        Optional<String> refused = create(c.name(), c.spec());
        if (refused.isPresent()) {
            OUTCOMES.merge("refused " + refused.get(), 1, Integer::sum);
            assertThat(resources().withName(c.name()).get())
                    .as("a refused create leaves no object")
                    .isNull();
        } else {
            NodeMaintenanceStatus settled = awaitSettled(c.name());
            OUTCOMES.merge(settled.getPhase().name(), 1, Integer::sum);
            System.out.println("GeneratedInputIT case: " + settled.getPhase() + " - "
                    + reason(settled)
                            .map(r -> r.length() > 160 ? r.substring(0, 160) + "..." : r)
                            .orElse(""));
            if (c.statusPatch().isPresent()) {
                Optional<String> patchRefused =
                        patchStatus(c.name(), c.statusPatch().get());
                OUTCOMES.merge(
                        patchRefused.map(r -> "status patch refused " + r).orElse("status patched"), 1, Integer::sum);
                NodeMaintenanceStatus after = awaitSettled(c.name());
                OUTCOMES.merge("after patch " + after.getPhase().name(), 1, Integer::sum);
            }
            resources().withName(c.name()).delete();
            await().atMost(SETTLE)
                    .alias(c.name() + " deleted (its finalizer removed)")
                    .until(() -> resources().withName(c.name()).get() == null);
        }
        await().atMost(SETTLE).untilAsserted(GeneratedInputIT::noNodeMarkedWithoutAReason);
        assertThat(PROBLEMS).as("errors the operator logged").isEmpty();
    }

    @Provide
    Arbitrary<Case> cases() {
        Arbitrary<Map<String, Object>> patch = statusPatches();
        return Combinators.combine(objectNames(), specs(), Arbitraries.of(true, false), patch)
                .as((name, spec, patched, p) -> new Case(name, spec, patched ? Optional.of(p) : Optional.empty()));
    }

    /** Object names: DNS subdomains of 1 to 253 characters (the most an object name may have), a few that are not. */
    static Arbitrary<String> objectNames() {
        Arbitrary<String> label = Arbitraries.strings()
                .withChars("abcdefghijklmnopqrstuvwxyz0123456789")
                .ofMinLength(1)
                .ofMaxLength(20);
        Arbitrary<String> valid = label.list().ofMinSize(1).ofMaxSize(4).map(l -> "g-" + String.join(".", l));
        Arbitrary<String> longest = label.map(l -> (l + "." + "x".repeat(253)).substring(0, 252) + "z");
        Arbitrary<String> invalid = Arbitraries.of("G-Upper", "g_under", "g-ünïcode", "g-" + "y".repeat(252), "-g");
        return Arbitraries.frequencyOf(
                        net.jqwik.api.Tuple.of(10, valid),
                        net.jqwik.api.Tuple.of(4, longest),
                        net.jqwik.api.Tuple.of(1, invalid))
                .map(n -> n.length() > 1 ? n : n + "0");
    }

    /** A spec as the raw JSON map a client sends: any field may be absent, wrong, extreme or fine. */
    static Arbitrary<Map<String, Object>> specs() {
        return Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(1, specs(false)), net.jqwik.api.Tuple.of(1, specs(true)));
    }

    /**
     * A spec; {@code hostile}: any field may also have a value the CRD schema refuses, so most such specs are 422s.
     * Otherwise every value is one the schema admits (extreme ones too: durations past 720h or of a fraction of a
     * nanosecond, priorities past int32), and the operator must decide them.
     */
    static Arbitrary<Map<String, Object>> specs(boolean hostile) {
        Arbitrary<Object> nodeName = hostile
                ? Arbitraries.frequencyOf(
                        net.jqwik.api.Tuple.of(6, Arbitraries.of(WORKERS).map(Object.class::cast)),
                        net.jqwik.api.Tuple.of(
                                3,
                                Arbitraries.of(
                                        "ghost",
                                        "",
                                        "W1_Bad",
                                        "nöde",
                                        "a".repeat(300),
                                        "cp1",
                                        "w1.",
                                        7,
                                        List.of("w1"))),
                        net.jqwik.api.Tuple.of(1, Arbitraries.just(ABSENT)))
                : Arbitraries.frequencyOf(
                        net.jqwik.api.Tuple.of(12, Arbitraries.of(WORKERS).map(Object.class::cast)),
                        net.jqwik.api.Tuple.of(1, Arbitraries.of("cp1", "ghost").map(Object.class::cast)));
        Arbitrary<Object> reason = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(3, Arbitraries.just(ABSENT)),
                net.jqwik.api.Tuple.of(3, Arbitraries.strings().ofMaxLength(40).map(Object.class::cast)),
                net.jqwik.api.Tuple.of(
                        2, Arbitraries.strings().all().ofMaxLength(60).map(Object.class::cast)),
                net.jqwik.api.Tuple.of(
                        2,
                        Arbitraries.of(
                                "kernel 🐧 update",
                                "שדרוג ליבה",
                                "e\u0301\u0301\u0301",
                                "nul\u0000byte",
                                "line\nbreak\t\"quoted\"",
                                "\uFEFFbom",
                                "ü".repeat(1024),
                                "x".repeat(1025),
                                12345)));
        Arbitrary<Object> duration = durations(hostile);
        Arbitrary<Object> integer = integers(hostile);
        Arbitrary<Object> bool = hostile
                ? Arbitraries.of(true, false, ABSENT, ABSENT, ABSENT, "yes")
                : Arbitraries.of(true, false, false, ABSENT, ABSENT, ABSENT);
        Arbitrary<Map<String, Object>> drain = Combinators.combine(
                        Combinators.combine(maybe(duration), maybe(integer), maybe(duration), maybe(duration))
                                .as((timeout, grace, retry, skipWait) -> fields(
                                        "timeout", timeout,
                                        "gracePeriodSeconds", grace,
                                        "evictionRetryDelay", retry,
                                        "skipWaitForDeleteTimeout", skipWait)),
                        maybe(duration),
                        maybe(duration),
                        bool)
                .as((m, waitCompleted, detach, disable) -> {
                    Map<String, Object> d = new LinkedHashMap<>(m);
                    put(d, "waitCompletedTimeout", waitCompleted);
                    put(d, "volumeDetach", detach == ABSENT ? ABSENT : fields("timeout", detach));
                    put(d, "disableEviction", disable);
                    return d;
                });
        // a preview stays Pending and touches nothing: one case in six, not jqwik's edge case of every other
        Arbitrary<Object> previews = Arbitraries.frequencyOf(
                        net.jqwik.api.Tuple.of(1, Arbitraries.just(true)),
                        net.jqwik.api.Tuple.of(4, absent()),
                        net.jqwik.api.Tuple.of(1, Arbitraries.just(hostile ? "yes" : false)))
                .withoutEdgeCases();
        Arbitrary<Object> schedule = Arbitraries.of(
                ABSENT,
                ABSENT,
                ABSENT,
                Map.of("startAt", "2001-01-01T00:00:00Z"),
                Map.of("startAt", "2999-01-01T00:00:00Z"),
                Map.of("startAt", "tomorrow"),
                Map.of("startAt", "+999999999-12-31T23:59:59Z"),
                Map.of("window", Map.of("start", "00:00", "end", "00:00")),
                Map.of("window", Map.of("start", "02:00", "end", "03:00", "timeZone", "Mars/Olympus")),
                Map.of("window", Map.of("start", "24:00", "end", "03:00")));
        return Combinators.combine(
                        Combinators.combine(nodeName, reason, maybe(duration), maybe(integer))
                                .as((node, why, window, priority) -> fields(
                                        "nodeName", node, "reason", why, "window", window, "priority", priority)),
                        Arbitraries.of(true, false).flatMap(on -> on ? drain.map(Object.class::cast) : absent()),
                        Combinators.combine(maybe(duration), maybe(duration), bool)
                                .as((handover, hooks, enabled) -> fields(
                                        "handover",
                                        handover == ABSENT && enabled == ABSENT
                                                ? ABSENT
                                                : fields("timeout", handover, "enabled", enabled),
                                        "hooks",
                                        hooks == ABSENT ? ABSENT : fields("timeout", hooks))),
                        Combinators.combine(previews, bool, schedule)
                                .as((preview, join, sched) ->
                                        fields("preview", preview, "join", join, "schedule", sched)))
                .as((top, drainSpec, lifecycle, flags) -> {
                    Map<String, Object> spec = new LinkedHashMap<>(top);
                    put(spec, "drain", drainSpec);
                    spec.putAll(lifecycle);
                    spec.putAll(flags);
                    return spec;
                });
    }

    /**
     * Every form the CRD pattern {@code ^(0|(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|ms|s|m|h))+)$} admits: "0";
     * one to three parts, each an integer (leading zeros too), an integer with a trailing dot, a decimal or a bare
     * fraction, in any unit; small, at and past the 720h limit, past int64 nanoseconds, and fractions of a
     * nanosecond. And some it refuses.
     */
    static Arbitrary<Object> durations(boolean hostile) {
        Arbitrary<String> digits = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(6, Arbitraries.integers().between(0, 999).map(String::valueOf)),
                net.jqwik.api.Tuple.of(1, Arbitraries.of("00", "007", "720", "721", "2592000", "43200")),
                net.jqwik.api.Tuple.of(
                        1, Arbitraries.of("9223372036854775807", "9223372036854775808", "99999999999999999999999")));
        Arbitrary<String> number = Combinators.combine(
                        digits,
                        Arbitraries.strings().numeric().ofMaxLength(12),
                        // mostly whole numbers, so that many specs are valid and start; the other forms each
                        // one time in eight
                        Arbitraries.integers().between(0, 7))
                .as((whole, fraction, form) -> switch (form) {
                    case 5 -> whole + ".";
                    case 6 -> whole + "." + fraction;
                    case 7 -> "." + (fraction.isEmpty() ? "5" : fraction);
                    default -> whole;
                });
        Arbitrary<String> part = Combinators.combine(number, Arbitraries.of("ns", "us", "µs", "ms", "s", "m", "h"))
                .as((n, unit) -> n + unit);
        Arbitrary<String> admitted = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(1, Arbitraries.just("0")),
                net.jqwik.api.Tuple.of(8, part.list().ofMinSize(1).ofMaxSize(3).map(l -> String.join("", l))),
                net.jqwik.api.Tuple.of(
                        2,
                        Arbitraries.of(
                                "720h", "720h0.000000001s", "1.5ns", "0.0000001ns", "1.0000000001s", ".5ns", "1.ns")));
        if (!hostile) {
            return admitted.map(Object.class::cast);
        }
        Arbitrary<Object> refused = Arbitraries.of(
                "", " ", "5 minutes", "-1s", "1d", "1e3s", "５s", "1h-5m", "s", ".", "0s0", "1H", 90, 1.5);
        return Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(5, admitted.map(Object.class::cast)), net.jqwik.api.Tuple.of(1, refused));
    }

    /** Integers near the ends of int32 and int64 and past them, and a few that are no integer at all. */
    static Arbitrary<Object> integers(boolean hostile) {
        BigInteger longMax = BigInteger.valueOf(Long.MAX_VALUE);
        if (!hostile) {
            return Arbitraries.frequencyOf(
                    net.jqwik.api.Tuple.of(
                            3, Arbitraries.integers().between(-5, 120).map(Object.class::cast)),
                    net.jqwik.api.Tuple.of(
                            1,
                            Arbitraries.of(
                                    Integer.MAX_VALUE,
                                    Integer.MIN_VALUE,
                                    (long) Integer.MAX_VALUE + 1,
                                    Long.MAX_VALUE,
                                    Long.MIN_VALUE)));
        }
        return Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(
                        3, Arbitraries.integers().between(-5, 120).map(Object.class::cast)),
                net.jqwik.api.Tuple.of(
                        3,
                        Arbitraries.of(
                                Integer.MAX_VALUE,
                                Integer.MIN_VALUE,
                                (long) Integer.MAX_VALUE + 1,
                                (long) Integer.MIN_VALUE - 1,
                                Long.MAX_VALUE,
                                Long.MIN_VALUE,
                                longMax.add(BigInteger.ONE),
                                BigInteger.valueOf(Long.MIN_VALUE).subtract(BigInteger.ONE),
                                new BigInteger("1" + "0".repeat(30)),
                                -1L,
                                -2L)),
                net.jqwik.api.Tuple.of(
                        1, Arbitraries.of(1.5, new BigDecimal("1e400"), "12", true, Map.of("level", "high"))));
    }

    /** A foreign status patch: any phase (and one the schema refuses), reasons, node names, numbers, conditions. */
    static Arbitrary<Map<String, Object>> statusPatches() {
        Arbitrary<Object> phase = Arbitraries.of(
                "Pending", "Scheduled", "Waiting", "Running", "Succeeded", "Failed", "Ended", "Bogus", ABSENT);
        Arbitrary<Object> lastError = Arbitraries.of(ABSENT, "restored from backup", "", "ошибка ✗", "z".repeat(5000));
        Arbitrary<Object> node = Arbitraries.of(ABSENT, "w1", "w5", "ghost", LONG_NODE);
        // mostly absent or admitted, so that most patches are written (drainProgress 101 or -1, a queuePosition
        // under 1: 422); Long.MAX_VALUE is admitted for queuePosition and read as absent
        Arbitrary<Object> numbers = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(6, absent()),
                net.jqwik.api.Tuple.of(3, Arbitraries.of(1, 50, 100).map(Object.class::cast)),
                net.jqwik.api.Tuple.of(
                        1, Arbitraries.of(0, 101, -1, Long.MAX_VALUE).map(Object.class::cast)));
        Arbitrary<Object> conditions = Arbitraries.of(
                ABSENT,
                List.of(),
                List.of(Map.of(
                        "type",
                        "Drained",
                        "status",
                        "True",
                        "reason",
                        "Restored",
                        "lastTransitionTime",
                        "2001-01-01T00:00:00Z",
                        "message",
                        "foreign")),
                List.of(Map.of(
                        "type",
                        "Cordoned",
                        "status",
                        "False",
                        "reason",
                        "Foreign",
                        "lastTransitionTime",
                        "2001-01-01T00:00:00Z",
                        "message",
                        "")));
        return Combinators.combine(phase, lastError, node, numbers, conditions, numbers)
                .as((p, e, n, progress, c, position) -> fields(
                        "phase", p,
                        "lastError", e,
                        "nodeName", n,
                        "drainProgress", progress,
                        "conditions", c,
                        "queuePosition", position));
    }

    // ---- the queue property -----------------------------------------------------------------------------------

    record Request(String node, int priority, String name) {}

    record Queue(List<Request> requests) {
        @Override
        public String toString() {
            return requests.toString();
        }
    }

    @Property(tries = QUEUE_TRIES, shrinking = ShrinkingMode.OFF)
    void aFreeSlotGoesToTheFirstAdmissibleRequestInQueueOrder(@ForAll("queues") Queue q) {
        uncordonNodesLeftBehind();
        String holder = "q-holder";
        assertThat(create(holder, fields("nodeName", "w1", "reason", "holds the only slot")))
                .isEmpty();
        await().atMost(SETTLE).until(() -> rig.phase(holder) == Phase.Succeeded);
        for (Request r : q.requests()) {
            assertThat(create(r.name(), fields("nodeName", r.node(), "priority", r.priority())))
                    .as("created %s", r)
                    .isEmpty();
        }
        for (Request r : q.requests()) {
            await().atMost(SETTLE)
                    .alias(r + " held")
                    .until(() -> rig.phase(r.name()) == Phase.Pending
                            && rig.status(r.name()).getLastError() != null);
        }
        List<NodeMaintenance> queued = q.requests().stream()
                .map(r -> client.resources(NodeMaintenance.class)
                        .withName(r.name())
                        .get())
                .sorted(NodeMaintenanceValidator.QUEUE_ORDER)
                .toList();
        Optional<String> first = queued.stream()
                .filter(nm -> !"cp1".equals(nm.getSpec().getNodeName()))
                .map(nm -> nm.getMetadata().getName())
                .findFirst();

        resources().withName(holder).delete();
        if (first.isPresent()) {
            await().atMost(SETTLE)
                    .alias("the freed slot goes to " + first.get() + ", first admissible in " + names(queued))
                    .until(() -> rig.phase(first.get()) == Phase.Succeeded);
        }
        for (Request r : q.requests()) {
            if (!Optional.of(r.name()).equals(first)) {
                assertThat(rig.phase(r.name()))
                        .as("%s, behind %s in %s", r.name(), first, names(queued))
                        .isEqualTo(Phase.Pending);
            }
        }
        for (Request r : q.requests()) {
            resources().withName(r.name()).delete();
        }
        await().atMost(SETTLE).until(() -> resources().list().getItems().isEmpty());
        await().atMost(SETTLE).untilAsserted(GeneratedInputIT::noNodeMarkedWithoutAReason);
        assertThat(PROBLEMS).as("errors the operator logged").isEmpty();
        assertThat(SEEN.get())
                .as("records the log handler heard from the operator's loggers (it listens where they log)")
                .isPositive();
        OUTCOMES.merge("queue of " + q.requests().size(), 1, Integer::sum);
    }

    @Provide
    Arbitrary<Queue> queues() {
        Arbitrary<Integer> priority = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(4, Arbitraries.integers().between(-1, 1)),
                net.jqwik.api.Tuple.of(1, Arbitraries.of(Integer.MAX_VALUE, Integer.MIN_VALUE, 100)));
        Arbitrary<String> suffix =
                Arbitraries.strings().withChars("abcdefghij").ofMinLength(1).ofMaxLength(3);
        return Arbitraries.shuffle("w2", "w3", "w4", "cp1")
                .flatMap(nodes -> Arbitraries.integers()
                        .between(2, 4)
                        .flatMap(n -> Combinators.combine(
                                        priority.list().ofSize(n),
                                        suffix.list().ofSize(n).uniqueElements())
                                .as((ps, names) -> {
                                    List<Request> rs = new ArrayList<>();
                                    for (int i = 0; i < n; i++) {
                                        rs.add(new Request(nodes.get(i), ps.get(i), "q-" + names.get(i)));
                                    }
                                    return new Queue(rs);
                                })));
    }

    // ---- the oracles ------------------------------------------------------------------------------------------

    /** Waits until {@code name} is in a settled phase with a named reason and an Event naming it; returns its status. */
    static NodeMaintenanceStatus awaitSettled(String name) {
        try {
            await().atMost(SETTLE).until(() -> settled(name));
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            GenericKubernetesResource nm = resources().withName(name).get();
            throw new AssertionError(
                    name + " not settled (a phase of " + SETTLED + ", a named reason, an event) within " + SETTLE
                            + ": status "
                            + (nm == null
                                    ? "<gone>"
                                    : json(nm.getAdditionalProperties().get("status")))
                            + ", events " + events(name),
                    e);
        }
        return statusOf(name);
    }

    /**
     * In a phase it stays in without a change of the world or the spec: Succeeded, Failed, Ended, Scheduled or Waiting
     * with a named reason; Pending only with what holds it in lastError (the limits, a refused preview) or as a
     * preview (its plan); and an Event names the object. Pending with only the conditions' "NotHeld" is the first
     * step of a start, not an end.
     */
    static boolean settled(String name) {
        GenericKubernetesResource nm = resources().withName(name).get();
        NodeMaintenanceStatus s = nm == null ? null : statusOf(nm);
        if (s == null
                || s.getPhase() == null
                || !SETTLED.contains(s.getPhase())
                || reason(s).isEmpty()) {
            return false;
        }
        if (s.getPhase() == Phase.Pending
                && (s.getLastError() == null || s.getLastError().isBlank())
                && !previewing(nm)) {
            return false;
        }
        return !events(name).isEmpty();
    }

    static boolean previewing(GenericKubernetesResource nm) {
        return nm.getAdditionalProperties().get("spec") instanceof Map<?, ?> spec
                && Boolean.TRUE.equals(spec.get("preview"));
    }

    /** What the status names as the reason of its phase: lastError, or the reason of a condition. */
    static Optional<String> reason(NodeMaintenanceStatus s) {
        if (s.getLastError() != null && !s.getLastError().isBlank()) {
            return Optional.of(s.getLastError());
        }
        return s.getConditions() == null
                ? Optional.empty()
                : s.getConditions().stream()
                        .map(Condition::getReason)
                        .filter(r -> r != null && !r.isBlank())
                        .findFirst();
    }

    /** No node is cordoned or tainted by Tenure unless its Tenure condition says why. */
    /**
     * The spec property may leave a node cordoned on purpose, with a condition saying why (a status wiped mid-drain).
     * A cordoned node counts against the cap of one as unavailable, as NVIDIA's scheduler counts it, so the queue
     * property starts as an admin would after reading that condition: the node uncordoned and its taint removed.
     */
    static void uncordonNodesLeftBehind() {
        for (Node n : client.nodes().list().getItems()) {
            if (Boolean.TRUE.equals(n.getSpec().getUnschedulable())) {
                client.nodes().withName(n.getMetadata().getName()).edit(node -> {
                    node.getSpec().setUnschedulable(false);
                    if (node.getSpec().getTaints() != null) {
                        node.getSpec()
                                .setTaints(node.getSpec().getTaints().stream()
                                        .filter(t ->
                                                !NodeMarks.DRAIN_TAINT.getKey().equals(t.getKey()))
                                        .toList());
                    }
                    return node;
                });
            }
        }
    }

    static void noNodeMarkedWithoutAReason() {
        for (Node n : client.nodes().list().getItems()) {
            boolean cordoned = Boolean.TRUE.equals(n.getSpec().getUnschedulable());
            List<Taint> taints =
                    n.getSpec().getTaints() == null ? List.of() : n.getSpec().getTaints();
            boolean tainted =
                    taints.stream().anyMatch(t -> NodeMarks.DRAIN_TAINT.getKey().equals(t.getKey()));
            if (cordoned || tainted) {
                assertThat(NodeMarks.conditionOf(n))
                        .as(
                                "node %s is %s%s with no NodeMaintenance left, and no %s condition says why",
                                n.getMetadata().getName(), cordoned ? "cordoned " : "", tainted ? "tainted" : "")
                        .hasValueSatisfying(c -> assertThat(c.getMessage()).isNotBlank());
            }
        }
    }

    // ---- the API, as a client sends it ------------------------------------------------------------------------

    static io.fabric8.kubernetes.client.dsl.NonNamespaceOperation<
                    GenericKubernetesResource,
                    io.fabric8.kubernetes.api.model.GenericKubernetesResourceList,
                    io.fabric8.kubernetes.client.dsl.Resource<GenericKubernetesResource>>
            resources() {
        return client.genericKubernetesResources(API_VERSION, "NodeMaintenance");
    }

    /** Creates the object; empty, or the API server's refusal ("422 ...", its code and first words). */
    static Optional<String> create(String name, Map<String, Object> spec) {
        Map<String, Object> object = new LinkedHashMap<>();
        object.put("apiVersion", API_VERSION);
        object.put("kind", "NodeMaintenance");
        object.put("metadata", Map.of("name", name));
        if (spec != null) {
            object.put("spec", spec);
        }
        try {
            GenericKubernetesResource r =
                    client.getKubernetesSerialization().unmarshal(json(object), GenericKubernetesResource.class);
            resources().resource(r).create();
            return Optional.empty();
        } catch (KubernetesClientException e) {
            assertThat(e.getCode())
                    .as("refused as a client error: %s", e.getMessage())
                    .isBetween(400, 499);
            return Optional.of(e.getCode() + " " + firstField(e));
        }
    }

    static Optional<String> patchStatus(String name, Map<String, Object> status) {
        try {
            resources()
                    .withName(name)
                    .subresource("status")
                    .patch(PatchContext.of(PatchType.JSON_MERGE), json(Map.of("status", status)));
            return Optional.empty();
        } catch (KubernetesClientException e) {
            assertThat(e.getCode())
                    .as("refused as a client error: %s", e.getMessage())
                    .isBetween(400, 499);
            return Optional.of(e.getCode() + " " + firstField(e));
        }
    }

    static String firstField(KubernetesClientException e) {
        if (e.getStatus() != null
                && e.getStatus().getDetails() != null
                && e.getStatus().getDetails().getCauses() != null
                && !e.getStatus().getDetails().getCauses().isEmpty()) {
            return String.valueOf(e.getStatus().getDetails().getCauses().get(0).getField());
        }
        return e.getStatus() == null ? "?" : String.valueOf(e.getStatus().getReason());
    }

    static NodeMaintenanceStatus statusOf(String name) {
        return statusOf(resources().withName(name).get());
    }

    /**
     * The status as the operator reads it: a foreign status may hold what the schema admits and the types do not
     * (queuePosition 2^63 - 1), read as absent ({@link MalformedFields}), as by the operator's client.
     */
    static NodeMaintenanceStatus statusOf(GenericKubernetesResource nm) {
        return nm == null
                ? null
                : LENIENT.convertValue(nm, NodeMaintenance.class).getStatus();
    }

    static final io.fabric8.kubernetes.client.utils.KubernetesSerialization LENIENT =
            new io.fabric8.kubernetes.client.utils.KubernetesSerialization(
                    new com.fasterxml.jackson.databind.ObjectMapper().registerModule(new MalformedFields()), true);

    static List<String> events(String name) {
        return client.v1().events().inAnyNamespace().list().getItems().stream()
                .filter(e -> name.equals(e.getInvolvedObject().getName()))
                .map(e -> e.getReason() + ": " + e.getMessage())
                .toList();
    }

    static String names(List<NodeMaintenance> nms) {
        return nms.stream()
                .map(nm -> nm.getMetadata().getName() + "(" + nm.getSpec().getNodeName() + ", priority "
                        + nm.getSpec().getPriority() + ", " + nm.getMetadata().getCreationTimestamp() + ")")
                .collect(Collectors.joining(", "));
    }

    // ---- raw JSON maps ----------------------------------------------------------------------------------------

    /** A field left out of the map. */
    static final Object ABSENT = new Object() {
        @Override
        public String toString() {
            return "<absent>";
        }
    };

    static Arbitrary<Object> absent() {
        return Arbitraries.just(ABSENT);
    }

    static Arbitrary<Object> maybe(Arbitrary<Object> value) {
        return Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(2, absent()), net.jqwik.api.Tuple.of(1, value));
    }

    static Map<String, Object> fields(Object... keyValues) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            put(m, (String) keyValues[i], keyValues[i + 1]);
        }
        return m;
    }

    static void put(Map<String, Object> m, String key, Object value) {
        if (value != ABSENT) {
            m.put(key, value);
        }
    }

    static String json(Object o) {
        return client.getKubernetesSerialization().asJson(o);
    }
}
