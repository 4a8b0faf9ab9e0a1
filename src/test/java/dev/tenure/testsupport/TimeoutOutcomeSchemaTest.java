package dev.tenure.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.tenure.maintenance.admission.NodeMaintenanceValidator;
import dev.tenure.maintenance.api.MalformedFields;
import dev.tenure.maintenance.api.NodeMaintenance;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Issue 37: an {@code onTimeout} that is not Fail, Proceed or Restore is refused naming the field, by the shipped CRD's
 * schema (as kube-apiserver validates it: {@link StructuralSchema}) and by the validator (the webhook, and the
 * reconciler on a cluster that stored the object without the schema).
 */
class TimeoutOutcomeSchemaTest {

    static final String BAD = """
            {"apiVersion":"tenure.dev/v1alpha1","kind":"NodeMaintenance","metadata":{"name":"m1"},
             "spec":{"nodeName":"n1",
                     "hooks":{"timeout":"5m","onTimeout":"Retry"},
                     "drain":{"timeout":"1m","onTimeout":"proceed","waitCompletedTimeout":"5m",
                              "waitCompletedOnTimeout":"Ignore",
                              "volumeDetach":{"timeout":"2m","onTimeout":"Uncordon"}}}}
            """;

    static final List<String> FIELDS = List.of(
            "spec.hooks.onTimeout",
            "spec.drain.onTimeout",
            "spec.drain.waitCompletedOnTimeout",
            "spec.drain.volumeDetach.onTimeout");

    /** Issue 49: spec.drain.placement is Warn, Wait or Ignore; anything else is refused naming the field. */
    static final String BAD_PLACEMENT = """
            {"apiVersion":"tenure.dev/v1alpha1","kind":"NodeMaintenance","metadata":{"name":"m1"},
             "spec":{"nodeName":"n1","drain":{"placement":"Sometimes"}}}
            """;

    @Test
    void theShippedSchemaRefusesAnUnknownPlacementPolicyNamingTheField() throws Exception {
        JsonNode crd = new YAMLMapper()
                .readTree(Path.of("olm-bundle/manifests/nodemaintenances.tenure.dev-v1.crd.yml")
                        .toFile());
        JsonNode schema = crd.at("/spec/versions/0/schema/openAPIV3Schema");
        List<StructuralSchema.Violation> violations =
                new StructuralSchema(schema).validate(new ObjectMapper().readTree(BAD_PLACEMENT), null);

        assertThat(violations).singleElement().satisfies(v -> {
            assertThat(v.field()).isEqualTo("spec.drain.placement");
            assertThat(v.detail()).contains("\"Ignore\"", "\"Wait\"", "\"Warn\"");
        });
    }

    @Test
    void theValidatorRefusesAnUnknownPlacementPolicyNamingTheField() {
        ObjectMapper mapper = new ObjectMapper();
        KubernetesSerialization json = new KubernetesSerialization(mapper, false);
        mapper.registerModule(new MalformedFields());
        NodeMaintenance nm = json.unmarshal(BAD_PLACEMENT, NodeMaintenance.class);

        List<String> refusals = NodeMaintenanceValidator.refusals(
                nm,
                null,
                new NodeMaintenanceValidator.ClusterView(
                        Optional.of(new NodeBuilder()
                                .withNewMetadata()
                                .withName("n1")
                                .endMetadata()
                                .build()),
                        List.<Node>of(),
                        List.of()));

        assertThat(refusals)
                .anyMatch(r -> r.startsWith("spec.drain.placement: must be one of [Warn, Wait, Ignore], was"));
    }

    /** Issue 51: spec.drain.evacuation is Evict or Surge; anything else is refused naming the field. */
    static final String BAD_EVACUATION = """
            {"apiVersion":"tenure.dev/v1alpha1","kind":"NodeMaintenance","metadata":{"name":"m1"},
             "spec":{"nodeName":"n1","drain":{"evacuation":"surge"}}}
            """;

    @Test
    void theShippedSchemaRefusesAnUnknownEvacuationNamingTheField() throws Exception {
        JsonNode crd = new YAMLMapper()
                .readTree(Path.of("olm-bundle/manifests/nodemaintenances.tenure.dev-v1.crd.yml")
                        .toFile());
        JsonNode schema = crd.at("/spec/versions/0/schema/openAPIV3Schema");
        List<StructuralSchema.Violation> violations =
                new StructuralSchema(schema).validate(new ObjectMapper().readTree(BAD_EVACUATION), null);

        assertThat(violations).singleElement().satisfies(v -> {
            assertThat(v.field()).isEqualTo("spec.drain.evacuation");
            assertThat(v.detail()).contains("\"Evict\"", "\"Surge\"");
        });
    }

    @Test
    void theValidatorRefusesAnUnknownEvacuationNamingTheField() {
        ObjectMapper mapper = new ObjectMapper();
        KubernetesSerialization json = new KubernetesSerialization(mapper, false);
        mapper.registerModule(new MalformedFields());
        NodeMaintenance nm = json.unmarshal(BAD_EVACUATION, NodeMaintenance.class);

        List<String> refusals = NodeMaintenanceValidator.refusals(
                nm,
                null,
                new NodeMaintenanceValidator.ClusterView(
                        Optional.of(new NodeBuilder()
                                .withNewMetadata()
                                .withName("n1")
                                .endMetadata()
                                .build()),
                        List.<Node>of(),
                        List.of()));

        assertThat(refusals).anyMatch(r -> r.startsWith("spec.drain.evacuation: must be one of [Evict, Surge], was"));
    }

    @Test
    void theShippedSchemaRefusesAnUnknownOutcomeNamingTheField() throws Exception {
        JsonNode crd = new YAMLMapper()
                .readTree(Path.of("olm-bundle/manifests/nodemaintenances.tenure.dev-v1.crd.yml")
                        .toFile());
        JsonNode schema = crd.at("/spec/versions/0/schema/openAPIV3Schema");
        List<StructuralSchema.Violation> violations =
                new StructuralSchema(schema).validate(new ObjectMapper().readTree(BAD), null);

        assertThat(violations)
                .extracting(StructuralSchema.Violation::field)
                .containsExactlyInAnyOrderElementsOf(FIELDS);
        assertThat(violations)
                .allSatisfy(
                        v -> assertThat(v.detail()).contains("supported values: \"Fail\", \"Proceed\", \"Restore\""));
    }

    @Test
    void theValidatorRefusesAnUnknownOutcomeNamingTheField() {
        ObjectMapper mapper = new ObjectMapper();
        KubernetesSerialization json = new KubernetesSerialization(mapper, false);
        mapper.registerModule(new MalformedFields()); // as the operator's client mapper is customized
        NodeMaintenance nm = json.unmarshal(BAD, NodeMaintenance.class);

        List<String> refusals = NodeMaintenanceValidator.refusals(
                nm,
                null,
                new NodeMaintenanceValidator.ClusterView(
                        Optional.of(new NodeBuilder()
                                .withNewMetadata()
                                .withName("n1")
                                .endMetadata()
                                .build()),
                        List.<Node>of(),
                        List.of()));

        for (String field : FIELDS) {
            assertThat(refusals).anyMatch(r -> r.startsWith(field + ": must be one of [Fail, Proceed, Restore], was"));
        }
    }
}
