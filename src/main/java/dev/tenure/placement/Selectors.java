package dev.tenure.placement;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelector;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import java.util.List;
import java.util.Map;

/**
 * Label and node selectors as Kubernetes reads them: {@code metav1.LabelSelectorAsSelector}
 * ({@code apimachinery/pkg/apis/meta/v1/helpers.go}: a null selector selects nothing, an empty one everything) and
 * {@code k8s.io/component-helpers/scheduling/corev1/nodeaffinity} (terms ORed, requirements in a term ANDed, a term
 * with no requirement selects nothing, {@code Gt}/{@code Lt} compare integers, {@code matchFields} knows only
 * {@code metadata.name}).
 */
final class Selectors {

    private Selectors() {}

    /**
     * Whether {@code selector} needs the labels it is matched against: not null (which selects nothing) and not
     * {@code {}} (which selects everything), so it has a {@code matchLabels} entry or a {@code matchExpressions} one.
     */
    static boolean readsLabels(LabelSelector selector) {
        return selector != null
                && (!(selector.getMatchLabels() == null
                                || selector.getMatchLabels().isEmpty())
                        || !Resources.list(selector.getMatchExpressions()).isEmpty());
    }

    /** Does {@code selector} select an object with {@code labels}? */
    static boolean matches(LabelSelector selector, Map<String, String> labels) {
        if (selector == null) {
            return false;
        }
        if (selector.getMatchLabels() != null) {
            for (Map.Entry<String, String> e : selector.getMatchLabels().entrySet()) {
                if (!e.getValue().equals(labels.get(e.getKey()))) {
                    return false;
                }
            }
        }
        for (LabelSelectorRequirement r : Resources.list(selector.getMatchExpressions())) {
            if (!matches(r.getKey(), r.getOperator(), Resources.list(r.getValues()), labels)) {
                return false;
            }
        }
        return true;
    }

    /** Does a required node selector (node affinity, a PersistentVolume's node affinity) select this node? */
    static boolean matches(NodeSelector selector, String nodeName, Map<String, String> labels) {
        if (selector == null) {
            return true;
        }
        for (NodeSelectorTerm term : Resources.list(selector.getNodeSelectorTerms())) {
            if (matches(term, nodeName, labels)) {
                return true;
            }
        }
        return false;
    }

    private static boolean matches(NodeSelectorTerm term, String nodeName, Map<String, String> labels) {
        List<NodeSelectorRequirement> expressions = Resources.list(term.getMatchExpressions());
        List<NodeSelectorRequirement> fields = Resources.list(term.getMatchFields());
        if (expressions.isEmpty() && fields.isEmpty()) {
            return false;
        }
        for (NodeSelectorRequirement r : expressions) {
            if (!Resources.list(r.getValues()).stream().allMatch(Selectors::validLabelValue)
                    || !matches(r.getKey(), r.getOperator(), Resources.list(r.getValues()), labels)) {
                return false;
            }
        }
        for (NodeSelectorRequirement r : fields) {
            // metadata.name is the one field selector node affinity supports; an invalid one selects nothing
            if (!"metadata.name".equals(r.getKey())
                    || !("In".equals(r.getOperator()) || "NotIn".equals(r.getOperator()))
                    || !matches(
                            r.getKey(),
                            r.getOperator(),
                            Resources.list(r.getValues()),
                            Map.of("metadata.name", nodeName))) {
                return false;
            }
        }
        return true;
    }

    private static boolean matches(String key, String operator, List<String> values, Map<String, String> labels) {
        String value = labels.get(key);
        return switch (operator == null ? "" : operator) {
            case "In" -> value != null && values.contains(value);
            case "NotIn" -> value == null || !values.contains(value);
            case "Exists" -> value != null;
            case "DoesNotExist" -> value == null;
            case "Gt", "Lt" -> value != null && values.size() == 1 && compare(value, values.get(0), operator);
            default -> false;
        };
    }

    /**
     * A valid label value ({@code apimachinery/pkg/util/validation}): a requirement with another value fails to
     * parse, and the scheduler's {@code LazyErrorNodeSelector} lets such a term select nothing.
     */
    static boolean validLabelValue(String value) {
        return value.length() <= 63 && LABEL_VALUE.matcher(value).matches();
    }

    private static final java.util.regex.Pattern LABEL_VALUE =
            java.util.regex.Pattern.compile("(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?");

    private static boolean compare(String label, String bound, String operator) {
        try {
            long l = Long.parseLong(label);
            long b = Long.parseLong(bound);
            return "Gt".equals(operator) ? l > b : l < b;
        } catch (NumberFormatException e) {
            return false;
        }
    }
}
