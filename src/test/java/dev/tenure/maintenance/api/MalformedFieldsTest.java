package dev.tenure.maintenance.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tenure.maintenance.admission.NodeMaintenanceValidator;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A NodeMaintenance with fields of the wrong JSON type (stored by an API server that does not enforce the CRD's
 * schema) is read, with those fields absent and each named, instead of failing the read — which, in an informer,
 * stops the controller for every NodeMaintenance.
 */
class MalformedFieldsTest {

    static final String WRONG_TYPES = """
            {"apiVersion":"tenure.dev/v1alpha1","kind":"NodeMaintenance",
             "metadata":{"name":"m1","resourceVersion":"7"},
             "spec":{"nodeName":"n1","join":"yes","priority":"high","preview":[true],
                     "drain":{"rules":[1],"gracePeriodSeconds":{"a":1}}},
             "status":{"phase":"Exploded","drainProgress":"half"}}
            """;

    static KubernetesSerialization lenient() {
        ObjectMapper mapper = new ObjectMapper();
        KubernetesSerialization json = new KubernetesSerialization(mapper, false);
        mapper.registerModule(new MalformedFields()); // as the operator's client mapper is customized
        return json;
    }

    @Test
    void withoutTheHandlerTheReadFails() {
        KubernetesSerialization plain = new KubernetesSerialization();
        assertThatThrownBy(() -> plain.unmarshal(WRONG_TYPES, NodeMaintenance.class))
                .hasStackTraceContaining("java.lang.Boolean");
    }

    @Test
    void eachWrongTypedSpecFieldIsReadAsAbsentAndNamed() {
        NodeMaintenance nm = lenient().unmarshal(WRONG_TYPES, NodeMaintenance.class);

        assertThat(nm.getSpec().getNodeName()).isEqualTo("n1");
        assertThat(nm.getSpec().getJoin()).isNull();
        assertThat(nm.getSpec().getPriority()).isNull();
        assertThat(nm.getSpec().getPreview()).isNull();
        assertThat(nm.getSpec().getDrain().getRules()).containsExactly((DrainRule) null);
        assertThat(nm.getSpec().getDrain().getGracePeriodSeconds()).isNull();
        assertThat(nm.malformedFields())
                .containsExactlyInAnyOrder(
                        "spec.join: must be a boolean, was \"yes\"",
                        "spec.priority: must be an integer, was \"high\"",
                        "spec.preview: must be a boolean, was [true]",
                        "spec.drain.rules[0]: must be an object, was 1",
                        "spec.drain.gracePeriodSeconds: must be an integer, was {\"a\":1}");
    }

    @Test
    void aWrongTypedStatusFieldIsReadAsAbsentWithoutANote() {
        NodeMaintenance nm = lenient().unmarshal(WRONG_TYPES, NodeMaintenance.class);

        assertThat(nm.getStatus().getPhase()).isNull();
        assertThat(nm.getStatus().getDrainProgress()).isNull();
        assertThat(nm.malformedFields()).noneMatch(m -> m.startsWith("status"));
    }

    @Test
    void theValidatorRefusesItNamingEachField() {
        NodeMaintenance nm = lenient().unmarshal(WRONG_TYPES, NodeMaintenance.class);

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

        assertThat(refusals).contains("spec.join: must be a boolean, was \"yes\"");
    }

    @Test
    void theWebhooksConversionNamesThemToo() {
        KubernetesSerialization json = lenient();
        Object object = json.unmarshal(WRONG_TYPES, Map.class);

        NodeMaintenance nm = json.convertValue(object, NodeMaintenance.class);

        assertThat(nm.malformedFields()).contains("spec.join: must be a boolean, was \"yes\"");
    }

    @Test
    void pastTheLimitTheObjectIsReadWithItsMetadataAndTheSpecNamedAsNotRead() {
        String rules = String.join(",", java.util.Collections.nCopies(MalformedFields.MAX_FIELDS + 8, "1"));
        String manyWrong = """
                {"apiVersion":"tenure.dev/v1alpha1","kind":"NodeMaintenance",
                 "metadata":{"name":"m2","resourceVersion":"9"},
                 "spec":{"nodeName":"n1","drain":{"rules":[%s]}}}
                """.formatted(rules);

        NodeMaintenance nm = lenient().unmarshal(manyWrong, NodeMaintenance.class);

        assertThat(nm.getMetadata().getName()).isEqualTo("m2");
        assertThat(nm.getSpec()).isNull();
        assertThat(nm.malformedFields())
                .containsExactly("spec: not read, more than " + MalformedFields.MAX_FIELDS
                        + " fields of the wrong type; first: spec.drain.rules[0]: must be an object, was 1");
    }

    @Test
    void aCopyBySerializingHasNoNotesUntilTheyAreCarriedFromTheObjectAsRead() {
        KubernetesSerialization json = lenient();
        NodeMaintenance read = json.unmarshal(WRONG_TYPES, NodeMaintenance.class);
        NodeMaintenance copy = json.clone(read);
        assertThat(copy.malformedFields()).isEmpty();

        NodeMaintenance.carryMalformedFields(read, copy);
        assertThat(copy.malformedFields()).isEqualTo(read.malformedFields());

        NodeMaintenance later = json.clone(read);
        later.getMetadata().setResourceVersion("8");
        NodeMaintenance.carryMalformedFields(read, later);
        assertThat(later.malformedFields())
                .as("a later version is judged as read")
                .isEmpty();
    }

    @Test
    void otherObjectsStillFailOnAWrongType() {
        KubernetesSerialization json = lenient();
        assertThatThrownBy(() -> json.unmarshal(
                        "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"n1\"},"
                                + "\"spec\":{\"unschedulable\":\"yes\"}}",
                        Node.class))
                .hasStackTraceContaining("java.lang.Boolean");
    }

    @Test
    void aWellFormedObjectHasNoNotes() {
        NodeMaintenance nm = lenient()
                .unmarshal(
                        "{\"apiVersion\":\"tenure.dev/v1alpha1\",\"kind\":\"NodeMaintenance\",\"metadata\":{\"name\":"
                                + "\"m2\"},\"spec\":{\"nodeName\":\"n1\",\"join\":true}}",
                        NodeMaintenance.class);
        assertThat(nm.getSpec().getJoin()).isTrue();
        assertThat(nm.malformedFields()).isEmpty();
    }
}
