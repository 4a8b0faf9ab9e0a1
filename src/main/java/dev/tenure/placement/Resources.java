package dev.tenure.placement;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Resource amounts as the scheduler counts them: {@code cpu} in millicores (a quantity's {@code MilliValue()}, rounded
 * up), everything else ({@code memory}, {@code ephemeral-storage}, {@code pods}, extended resources) in whole units
 * ({@code Value()}, rounded up). An unparsable quantity counts as 0 (the API server rejects those before they are
 * stored).
 */
final class Resources {

    static final String CPU = "cpu";
    static final String MEMORY = "memory";
    static final String EPHEMERAL_STORAGE = "ephemeral-storage";
    static final String PODS = "pods";

    private Resources() {}

    /** One quantity in the scheduler's unit for {@code resource}. */
    static long amount(String resource, Quantity quantity) {
        if (quantity == null) {
            return 0;
        }
        try {
            BigDecimal value = quantity.getNumericalAmount();
            if (CPU.equals(resource)) {
                value = value.multiply(BigDecimal.valueOf(1000));
            }
            return value.setScale(0, RoundingMode.CEILING).longValueExact();
        } catch (ArithmeticException | IllegalArgumentException e) {
            return 0;
        }
    }

    /** A resource list (allocatable, requests, overhead) in the scheduler's units; empty for null. */
    static Map<String, Long> of(Map<String, Quantity> list) {
        Map<String, Long> out = new HashMap<>();
        if (list != null) {
            list.forEach((name, q) -> out.put(name, amount(name, q)));
        }
        return out;
    }

    /**
     * What a pod requests, by {@code PodRequests} of {@code k8s.io/component-helpers/resource/helpers.go}: the sum of
     * its containers; each restartable (sidecar) init container adds to that sum; a regular init container needs its
     * own requests plus the sidecars started before it; the pod needs the larger of the running sum and the largest
     * init step, plus {@code spec.overhead}. Pod-level {@code spec.resources} (alpha/beta in 1.32-1.34) is not read.
     */
    static Map<String, Long> podRequests(Pod pod) {
        Map<String, Long> reqs = new HashMap<>();
        if (pod.getSpec() == null) {
            return reqs;
        }
        for (Container c : list(pod.getSpec().getContainers())) {
            add(reqs, requests(c));
        }
        Map<String, Long> sidecars = new HashMap<>();
        Map<String, Long> initMax = new HashMap<>();
        for (Container c : list(pod.getSpec().getInitContainers())) {
            Map<String, Long> step;
            if ("Always".equals(c.getRestartPolicy())) {
                add(reqs, requests(c));
                add(sidecars, requests(c));
                step = sidecars;
            } else {
                step = new HashMap<>(requests(c));
                add(step, sidecars);
            }
            step.forEach((k, v) -> initMax.merge(k, v, Math::max));
        }
        initMax.forEach((k, v) -> reqs.merge(k, v, Math::max));
        add(reqs, of(pod.getSpec().getOverhead()));
        return reqs;
    }

    private static Map<String, Long> requests(Container c) {
        return c.getResources() == null ? Map.of() : of(c.getResources().getRequests());
    }

    static void add(Map<String, Long> to, Map<String, Long> more) {
        more.forEach((k, v) -> to.merge(k, v, Long::sum));
    }

    static void subtract(Map<String, Long> from, Map<String, Long> less) {
        less.forEach((k, v) -> from.merge(k, -v, Long::sum));
    }

    static <T> List<T> list(List<T> maybe) {
        return maybe == null ? List.of() : maybe;
    }
}
