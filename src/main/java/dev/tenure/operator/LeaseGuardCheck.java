package dev.tenure.operator;

import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBinding;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;
import org.jboss.logging.Logger;

/**
 * Whether the Lease guard (deploy/lease-guard.yaml: the ValidatingAdmissionPolicy and its Deny binding bounding the
 * operator's cluster-wide Lease write) is installed. OLM cannot install admission policies, so under OLM nothing else
 * tells a user it is missing. Reported as the readiness detail {@value #NAME}, which stays UP (the operator works
 * without it; it is only less bounded), as the gauge {@code tenure_lease_guard_installed} (1 installed, 0 missing,
 * NaN not known yet or unreadable), and as a warning in the log when it is found missing. Read on each readiness
 * probe, by name: RBAC grants {@code get} on exactly these two objects.
 */
@Readiness
@ApplicationScoped
public class LeaseGuardCheck implements HealthCheck {

    static final String NAME = "tenure-lease-guard";
    /** The policy's and the binding's name in deploy/lease-guard.yaml. */
    static final String POLICY = "tenure-operator-lease-guard";

    static final String METRIC = "tenure.lease_guard.installed";

    private static final Logger LOG = Logger.getLogger(LeaseGuardCheck.class);

    /** What one read of the policy and its binding showed. */
    record Assessment(Boolean installed, String policy, String binding) {
        static final Assessment UNKNOWN = new Assessment(null, "not read yet", "not read yet");

        /** 1 installed, 0 missing (or not denying), NaN unknown. */
        double gauge() {
            return installed == null ? Double.NaN : installed ? 1 : 0;
        }

        String effect() {
            if (installed == null) {
                return "unknown: the operator could not read the policy";
            }
            return installed
                    ? "the operator's Lease writes are bounded"
                    : "NOT installed: the operator may write any Lease its RBAC allows; apply deploy/lease-guard.yaml";
        }
    }

    @Inject
    KubernetesClient client;

    private final AtomicReference<Assessment> last = new AtomicReference<>(Assessment.UNKNOWN);

    void registerMetric(@Observes StartupEvent start, MeterRegistry registry) {
        Gauge.builder(METRIC, last, a -> a.get().gauge())
                .description("1 when the Lease guard ValidatingAdmissionPolicy and its Deny binding"
                        + " (deploy/lease-guard.yaml) are installed, 0 when missing, NaN until read")
                .strongReference(true)
                .register(registry);
    }

    @Override
    public HealthCheckResponse call() {
        Assessment assessment;
        try {
            var policies = client.admissionRegistration().v1();
            assessment = assess(
                    Optional.ofNullable(policies.validatingAdmissionPolicies()
                            .withName(POLICY)
                            .get()),
                    Optional.ofNullable(policies.validatingAdmissionPolicyBindings()
                            .withName(POLICY)
                            .get()));
        } catch (RuntimeException e) {
            String reason = "cannot read it: " + ApiServerReadinessCheck.rootMessage(e);
            assessment = new Assessment(null, reason, reason);
        }
        Assessment before = last.getAndSet(assessment);
        if (Boolean.FALSE.equals(assessment.installed()) && !Boolean.FALSE.equals(before.installed())) {
            LOG.warnf(
                    "Lease guard %s is not installed (policy: %s; binding: %s): apply deploy/lease-guard.yaml",
                    POLICY, assessment.policy(), assessment.binding());
        }
        return HealthCheckResponse.named(NAME)
                .up()
                .withData("policy", assessment.policy())
                .withData("binding", assessment.binding())
                .withData("effect", assessment.effect())
                .build();
    }

    /** The policy and binding as read; installed only when the binding binds this policy with Deny. */
    static Assessment assess(
            Optional<ValidatingAdmissionPolicy> policy, Optional<ValidatingAdmissionPolicyBinding> binding) {
        String policyState = policy.isPresent() ? "present" : "missing";
        String bindingState;
        boolean denies = false;
        if (binding.isEmpty()) {
            bindingState = "missing";
        } else {
            var spec = binding.get().getSpec();
            String policyName = spec == null ? null : spec.getPolicyName();
            List<String> actions =
                    spec == null || spec.getValidationActions() == null ? List.of() : spec.getValidationActions();
            if (!POLICY.equals(policyName)) {
                bindingState = "binds " + policyName + ", not " + POLICY;
            } else if (!actions.contains("Deny")) {
                bindingState = "present without Deny (validationActions " + actions + "): nothing is refused";
            } else {
                bindingState = "present";
                denies = true;
            }
        }
        return new Assessment(policy.isPresent() && denies, policyState, Objects.requireNonNull(bindingState));
    }
}
