package dev.tenure.rollout;

import com.google.re2j.PatternSyntaxException;
import dev.tenure.kube.UserText;
import dev.tenure.maintenance.api.GoDuration;
import dev.tenure.maintenance.api.NodeMaintenanceSpec;
import dev.tenure.rollout.api.DoneWhen;
import dev.tenure.rollout.api.HealthGate;
import dev.tenure.rollout.api.PrometheusAlerts;
import dev.tenure.rollout.api.RolloutSpec;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A rollout's spec checked and resolved: {@link #problems} names each wrong field (the webhook's and the reconciler's
 * message), {@link #rules} resolves the limits for a pool of a given size. Pure.
 */
public final class RolloutSpecs {

    public static final String DEFAULT_TOPOLOGY_KEY = "topology.kubernetes.io/zone";
    static final Duration DEFAULT_SOAK_TIMEOUT = Duration.ofMinutes(30);
    /** How long an answer that closed the alert gate is used when spec.health.alerts.interval is unset. */
    static final Duration DEFAULT_ALERT_INTERVAL = Duration.ofSeconds(10);

    private static final Duration MIN_ALERT_INTERVAL = Duration.ofSeconds(1);
    private static final Duration MAX_ALERT_INTERVAL = Duration.ofHours(1);
    private static final Pattern PERCENT = Pattern.compile("^([0-9]{1,3})%$");
    private static final Pattern NODE_NAME = Pattern.compile(NodeMaintenanceSpec.NODE_NAME_PATTERN);
    private static final Set<String> OPERATORS = Set.of("In", "NotIn", "Exists", "DoesNotExist");

    private RolloutSpecs() {}

    /** Each field that is wrong, one message each naming it; empty for a spec that can run. */
    public static List<String> problems(RolloutSpec spec) {
        List<String> out = new ArrayList<>();
        if (spec == null) {
            return List.of("spec: required");
        }
        boolean anySelector = spec.getNodeSelector() != null;
        boolean anyNodes = spec.getNodes() != null && !spec.getNodes().isEmpty();
        if (!anySelector && !anyNodes) {
            out.add("spec.nodeSelector, spec.nodes: set at least one (which nodes the rollout maintains)");
        }
        if (anySelector) {
            selectorProblems("spec.nodeSelector", spec.getNodeSelector(), out);
        }
        if (spec.getNodes() != null) {
            for (int i = 0; i < spec.getNodes().size(); i++) {
                String n = spec.getNodes().get(i);
                if (n == null
                        || n.length() > NodeMaintenanceSpec.MAX_NODE_NAME
                        || !NODE_NAME.matcher(n).matches()) {
                    out.add("spec.nodes[" + i + "]: \"" + n + "\" is not a node name");
                }
            }
        }
        intOrPercent("spec.maxUnavailable", spec.getMaxUnavailable(), out);
        intOrPercent("spec.failureBudget", spec.getFailureBudget(), out);
        if (spec.getMaxUnavailablePerDomain() != null && spec.getMaxUnavailablePerDomain() < 1) {
            out.add("spec.maxUnavailablePerDomain: must be at least 1, was " + spec.getMaxUnavailablePerDomain());
        }
        if (spec.getTopologyKey() != null && spec.getTopologyKey().isBlank()) {
            out.add("spec.topologyKey: must not be empty");
        }
        if (spec.getOrderByLabel() != null && spec.getOrderByLabel().isBlank()) {
            out.add("spec.orderByLabel: must not be empty");
        }
        doneWhenProblems(spec.getDoneWhen(), out);
        HealthGate health = spec.getHealth();
        if (health != null) {
            duration("spec.health.soak", health.getSoak(), out);
            duration("spec.health.soakTimeout", health.getSoakTimeout(), out);
            positiveDuration("spec.health.gateTimeout", health.getGateTimeout(), out);
            if (health.getBlockingPodSelector() != null) {
                selectorProblems("spec.health.blockingPodSelector", health.getBlockingPodSelector(), out);
            }
            if (health.getAlerts() != null) {
                alertProblems(health.getAlerts(), out);
            }
        }
        if (spec.getTemplate() != null
                && spec.getTemplate().getReason() != null
                && spec.getTemplate().getReason().length() > NodeMaintenanceSpec.MAX_REASON) {
            out.add("spec.template.reason: at most " + NodeMaintenanceSpec.MAX_REASON + " characters");
        }
        return List.copyOf(out);
    }

    /**
     * The rules for a pool of {@code selected} nodes.
     *
     * @throws IllegalArgumentException when {@link #problems} is not empty (its first message)
     */
    public static RolloutRules rules(RolloutSpec spec, int selected) {
        List<String> problems = problems(spec);
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException(problems.get(0));
        }
        HealthGate health = spec.getHealth() == null ? new HealthGate() : spec.getHealth();
        Duration soak = GoDuration.parseOrNull("spec.health.soak", health.getSoak());
        Duration soakTimeout = GoDuration.parseOrNull("spec.health.soakTimeout", health.getSoakTimeout());
        Duration gateTimeout = GoDuration.parseOrNull("spec.health.gateTimeout", health.getGateTimeout());
        return new RolloutRules(
                scaled(spec.getMaxUnavailable(), selected),
                spec.getMaxUnavailablePerDomain() == null ? Integer.MAX_VALUE : spec.getMaxUnavailablePerDomain(),
                scaled(spec.getFailureBudget(), selected),
                Boolean.TRUE.equals(spec.getPaused()),
                signal(spec.getDoneWhen()),
                soak == null ? Duration.ZERO : soak,
                soakTimeout == null ? DEFAULT_SOAK_TIMEOUT : soakTimeout,
                GoDuration.parseOrNull(
                        "spec.doneWhen.timeout", spec.getDoneWhen().getTimeout()),
                gateTimeout == null ? RolloutRules.DEFAULT_GATE_TIMEOUT : gateTimeout);
    }

    /** spec.health.workloadsWhole: whether a done node's slot waits for its drained workloads (default true). */
    public static boolean waitsForWholeWorkloads(RolloutSpec spec) {
        return spec.getHealth() == null
                || !Boolean.FALSE.equals(spec.getHealth().getWorkloadsWhole());
    }

    /**
     * The alert gate's query, or null when the rollout has none ({@code spec.health.alerts} unset).
     *
     * @throws IllegalArgumentException when {@link #problems} is not empty (its first message)
     */
    public static AlertQuery alertQuery(RolloutSpec spec) {
        PrometheusAlerts alerts = spec == null || spec.getHealth() == null
                ? null
                : spec.getHealth().getAlerts();
        if (alerts == null) {
            return null;
        }
        List<String> problems = problems(spec);
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException(problems.get(0));
        }
        Duration interval = GoDuration.parseOrNull("spec.health.alerts.interval", alerts.getInterval());
        return new AlertQuery(
                alerts.getPrometheusURL(),
                alerts.getInclude(),
                alerts.getExclude(),
                !Boolean.FALSE.equals(alerts.getFiringOnly()),
                interval == null ? DEFAULT_ALERT_INTERVAL : interval);
    }

    /** The topology key the domains are read from. */
    public static String topologyKey(RolloutSpec spec) {
        return spec.getTopologyKey() == null ? DEFAULT_TOPOLOGY_KEY : spec.getTopologyKey();
    }

    /** The label the order is read from. */
    public static String orderLabel(RolloutSpec spec) {
        return spec.getOrderByLabel() == null ? topologyKey(spec) : spec.getOrderByLabel();
    }

    /** Whether a node with {@code labels} named {@code name} is selected. */
    public static boolean selects(RolloutSpec spec, String name, Map<String, String> labels) {
        if (spec.getNodes() != null && spec.getNodes().contains(name)) {
            return true;
        }
        return spec.getNodeSelector() != null && matches(spec.getNodeSelector(), labels);
    }

    /** A label selector's meaning (apimachinery's LabelSelectorAsSelector): every term must hold; empty selects all. */
    public static boolean matches(LabelSelector selector, Map<String, String> labels) {
        Map<String, String> l = labels == null ? Map.of() : labels;
        if (selector.getMatchLabels() != null) {
            for (Map.Entry<String, String> e : selector.getMatchLabels().entrySet()) {
                if (!Objects.equals(l.get(e.getKey()), e.getValue())) {
                    return false;
                }
            }
        }
        if (selector.getMatchExpressions() != null) {
            for (LabelSelectorRequirement r : selector.getMatchExpressions()) {
                List<String> values = r.getValues() == null ? List.of() : r.getValues();
                boolean has = l.containsKey(r.getKey());
                boolean ok = switch (r.getOperator()) {
                    case "In" -> has && values.contains(l.get(r.getKey()));
                    case "NotIn" -> !has || !values.contains(l.get(r.getKey()));
                    case "Exists" -> has;
                    case "DoesNotExist" -> !has;
                    default -> false;
                };
                if (!ok) {
                    return false;
                }
            }
        }
        return true;
    }

    static int scaled(IntOrString value, int selected) {
        if (value == null) {
            return 1;
        }
        if (value.getIntVal() != null) {
            return value.getIntVal();
        }
        Matcher m = PERCENT.matcher(value.getStrVal());
        m.matches();
        return RolloutRules.scaled(0, Integer.parseInt(m.group(1)), selected);
    }

    private static void intOrPercent(String field, IntOrString value, List<String> out) {
        if (value == null) {
            return;
        }
        if (value.getIntVal() != null) {
            if (value.getIntVal() < 1) {
                out.add(field + ": must be at least 1, was " + value.getIntVal());
            }
            return;
        }
        Matcher m = value.getStrVal() == null ? null : PERCENT.matcher(value.getStrVal());
        if (m == null || !m.matches()) {
            out.add(field + ": must be a count or a percentage such as \"10%\", was \"" + value.getStrVal() + "\"");
        } else {
            int p = Integer.parseInt(m.group(1));
            if (p < 1 || p > 100) {
                out.add(field + ": a percentage from 1% to 100%, was \"" + value.getStrVal() + "\"");
            }
        }
    }

    private static void selectorProblems(String field, LabelSelector selector, List<String> out) {
        if (selector.getMatchExpressions() == null) {
            return;
        }
        for (int i = 0; i < selector.getMatchExpressions().size(); i++) {
            LabelSelectorRequirement r = selector.getMatchExpressions().get(i);
            String at = field + ".matchExpressions[" + i + "]";
            if (r.getKey() == null || r.getKey().isBlank()) {
                out.add(at + ".key: required");
            }
            if (r.getOperator() == null || !OPERATORS.contains(r.getOperator())) {
                out.add(at + ".operator: one of In, NotIn, Exists, DoesNotExist, was \"" + r.getOperator() + "\"");
                continue;
            }
            boolean hasValues = r.getValues() != null && !r.getValues().isEmpty();
            boolean wantsValues =
                    r.getOperator().equals("In") || r.getOperator().equals("NotIn");
            if (wantsValues != hasValues) {
                out.add(at + ".values: " + (wantsValues ? "required" : "must be empty") + " for " + r.getOperator());
            }
        }
    }

    private static void doneWhenProblems(DoneWhen d, List<String> out) {
        if (d == null) {
            out.add("spec.doneWhen: required (one of rebooted, label, annotation, kubeletVersion, osImage, duration,"
                    + " manual)");
            return;
        }
        List<String> set = new ArrayList<>();
        if (Boolean.TRUE.equals(d.getRebooted())) set.add("rebooted");
        if (d.getLabel() != null) set.add("label");
        if (d.getAnnotation() != null) set.add("annotation");
        if (d.getKubeletVersion() != null) set.add("kubeletVersion");
        if (d.getOsImage() != null) set.add("osImage");
        if (d.getDuration() != null) set.add("duration");
        if (Boolean.TRUE.equals(d.getManual())) set.add("manual");
        if (set.size() != 1) {
            out.add("spec.doneWhen: set exactly one of rebooted, label, annotation, kubeletVersion, osImage, duration,"
                    + " manual; " + (set.isEmpty() ? "none is set" : "set: " + String.join(", ", set)));
        }
        keyValue("spec.doneWhen.label", d.getLabel(), out);
        keyValue("spec.doneWhen.annotation", d.getAnnotation(), out);
        if (d.getKubeletVersion() != null && d.getKubeletVersion().isBlank()) {
            out.add("spec.doneWhen.kubeletVersion: must not be empty");
        }
        if (d.getOsImage() != null && d.getOsImage().isBlank()) {
            out.add("spec.doneWhen.osImage: must not be empty");
        }
        duration("spec.doneWhen.duration", d.getDuration(), out);
        duration("spec.doneWhen.timeout", d.getTimeout(), out);
    }

    private static void alertProblems(PrometheusAlerts alerts, List<String> out) {
        String url = alerts.getPrometheusURL();
        if (url == null || url.isBlank()) {
            out.add("spec.health.alerts.prometheusURL: required (the Prometheus asked for ALERTS)");
        } else if (!prometheusURL(url)) {
            out.add("spec.health.alerts.prometheusURL: an http or https URL with a host and no user info, query or"
                    + " fragment, e.g. http://prometheus.monitoring:9090, was \"" + UserText.printable(url) + "\"");
        }
        regexes("spec.health.alerts.include", alerts.getInclude(), out);
        regexes("spec.health.alerts.exclude", alerts.getExclude(), out);
        try {
            Duration interval = GoDuration.parseOrNull("spec.health.alerts.interval", alerts.getInterval());
            if (interval != null
                    && (interval.compareTo(MIN_ALERT_INTERVAL) < 0 || interval.compareTo(MAX_ALERT_INTERVAL) > 0)) {
                out.add("spec.health.alerts.interval: from 1s to 1h, was \"" + UserText.printable(alerts.getInterval())
                        + "\"");
            }
        } catch (GoDuration.InvalidDuration e) {
            out.add(e.getMessage());
        }
    }

    private static boolean prometheusURL(String text) {
        try {
            URI uri = new URI(text);
            return ("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))
                    && uri.getHost() != null
                    && uri.getRawUserInfo() == null
                    && uri.getRawQuery() == null
                    && uri.getRawFragment() == null;
        } catch (URISyntaxException e) {
            return false;
        }
    }

    /** Each regex must compile as RE2 (Go's regexp, Kured's --alert-filter-regexp); the error names its index. */
    private static void regexes(String field, List<String> regexes, List<String> out) {
        if (regexes == null) {
            return;
        }
        for (int i = 0; i < regexes.size(); i++) {
            String regex = regexes.get(i);
            if (regex == null) {
                out.add(field + "[" + i + "]: required");
                continue;
            }
            try {
                com.google.re2j.Pattern.compile(regex);
            } catch (PatternSyntaxException e) {
                out.add(field + "[" + i + "]: not an RE2 regex (Go's syntax): " + UserText.printable(e.getDescription())
                        + " in \"" + UserText.printable(regex) + "\"");
            }
        }
    }

    private static void keyValue(String field, String text, List<String> out) {
        if (text == null) {
            return;
        }
        int eq = text.indexOf('=');
        if (eq <= 0) {
            out.add(field + ": must be key=value, was \"" + text + "\"");
        }
    }

    private static void positiveDuration(String field, String text, List<String> out) {
        Duration d;
        try {
            d = GoDuration.parseOrNull(field, text);
        } catch (GoDuration.InvalidDuration e) {
            out.add(e.getMessage());
            return;
        }
        if (d != null && (d.isZero() || d.isNegative())) {
            out.add(field + ": must be more than 0s, was \"" + text + "\"");
        }
    }

    private static void duration(String field, String text, List<String> out) {
        try {
            GoDuration.parseOrNull(field, text);
        } catch (GoDuration.InvalidDuration e) {
            out.add(e.getMessage());
        }
    }

    static DoneSignal signal(DoneWhen d) {
        if (Boolean.TRUE.equals(d.getRebooted())) {
            return new DoneSignal.Rebooted();
        }
        if (d.getLabel() != null) {
            int eq = d.getLabel().indexOf('=');
            return new DoneSignal.Label(
                    d.getLabel().substring(0, eq), d.getLabel().substring(eq + 1));
        }
        if (d.getAnnotation() != null) {
            int eq = d.getAnnotation().indexOf('=');
            return new DoneSignal.Annotation(
                    d.getAnnotation().substring(0, eq), d.getAnnotation().substring(eq + 1));
        }
        if (d.getKubeletVersion() != null) {
            return new DoneSignal.KubeletVersion(d.getKubeletVersion());
        }
        if (d.getOsImage() != null) {
            return new DoneSignal.OsImage(d.getOsImage());
        }
        if (d.getDuration() != null) {
            return new DoneSignal.AfterDrained(GoDuration.parse("spec.doneWhen.duration", d.getDuration()));
        }
        return new DoneSignal.Manual();
    }
}
