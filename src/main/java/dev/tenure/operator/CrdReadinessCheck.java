package dev.tenure.operator;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionCondition;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.Operator;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;

/**
 * Readiness: every CRD our reconcilers watch is installed and Established. Without it the
 * informers fail and nothing reconciles; the detail names the CRD and how to install it.
 */
@Readiness
@ApplicationScoped
public class CrdReadinessCheck implements HealthCheck {

    static final String NAME = "CRDs established";

    /** What one CRD's state means for readiness, with a detail for the operator reading the probe. */
    record CrdState(boolean established, String detail) {}

    @Inject
    KubernetesClient client;

    @Inject
    Operator operator;

    @Override
    public HealthCheckResponse call() {
        HealthCheckResponseBuilder response = HealthCheckResponse.named(NAME);
        boolean ready = true;
        for (String crdName : watchedCrdNames()) {
            CrdState state;
            try {
                state = assess(
                        crdName,
                        Optional.ofNullable(client.apiextensions()
                                .v1()
                                .customResourceDefinitions()
                                .withName(crdName)
                                .get()));
            } catch (RuntimeException e) {
                state = new CrdState(false, "cannot read the CRD: " + ApiServerReadinessCheck.rootMessage(e));
            }
            ready &= state.established();
            response.withData(crdName, state.detail());
        }
        return response.status(ready).build();
    }

    /** CRD names of the custom resources the registered reconcilers watch (built-in kinds need none). */
    List<String> watchedCrdNames() {
        TreeSet<String> names = new TreeSet<>();
        operator.getRuntimeInfo().getRegisteredControllers().forEach(controller -> {
            Class<?> resource = controller.getConfiguration().getResourceClass();
            if (CustomResource.class.isAssignableFrom(resource)) {
                @SuppressWarnings("unchecked")
                Class<? extends CustomResource<?, ?>> customResource = (Class<? extends CustomResource<?, ?>>) resource;
                names.add(CustomResource.getCRDName(customResource));
            }
        });
        return List.copyOf(names);
    }

    /** Established=True is what the API server sets once it serves the resource. */
    static CrdState assess(String crdName, Optional<CustomResourceDefinition> crd) {
        if (crd.isEmpty()) {
            return new CrdState(false, "missing: install it from deploy/tenure-operator.yaml or the OLM bundle");
        }
        Map<String, CustomResourceDefinitionCondition> conditions = new LinkedHashMap<>();
        if (crd.get().getStatus() != null && crd.get().getStatus().getConditions() != null) {
            crd.get().getStatus().getConditions().forEach(c -> conditions.put(c.getType(), c));
        }
        CustomResourceDefinitionCondition established = conditions.get("Established");
        if (established != null && "True".equals(established.getStatus())) {
            return new CrdState(true, "Established");
        }
        CustomResourceDefinitionCondition namesAccepted = conditions.get("NamesAccepted");
        if (namesAccepted != null && "False".equals(namesAccepted.getStatus())) {
            return new CrdState(
                    false, "names not accepted: " + namesAccepted.getReason() + " " + namesAccepted.getMessage());
        }
        if (conditions.isEmpty()) {
            // A real API server reports NamesAccepted/Established within milliseconds of creation;
            // servers that never write CRD status (test doubles) would otherwise keep us unready.
            return new CrdState(true, "present (the API server reports no conditions)");
        }
        if (established == null) {
            return new CrdState(false, "not established yet (the API server has not reported it)");
        }
        return new CrdState(false, "not established: " + established.getReason() + " " + established.getMessage());
    }
}
