package dev.tenure.maintenance.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.kube.UserText;
import io.fabric8.crdv2.generator.CRDGenerator;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The CRD the build generates from the API types (same generator QOSDK runs), asserted where it matters. */
class NodeMaintenanceCrdTest {

    @Test
    void crdHasTheShapeUsersAndMedik8sMigrationsRelyOn(@TempDir Path dir) throws IOException {
        new CRDGenerator()
                .inOutputDir(dir.toFile())
                .forCRDVersions("v1")
                .customResourceClasses(NodeMaintenance.class)
                .generate();
        CustomResourceDefinition crd = Serialization.unmarshal(
                Files.readString(dir.resolve("nodemaintenances.tenure.dev-v1.yml")), CustomResourceDefinition.class);

        assertThat(crd.getSpec().getGroup()).isEqualTo("tenure.dev");
        assertThat(crd.getSpec().getScope()).isEqualTo("Cluster");
        assertThat(crd.getSpec().getNames().getShortNames())
                .as("not nm: medik8s NMO's CRD has it, and users migrate with both installed")
                .containsExactly("tnm");
        CustomResourceDefinitionVersion v = crd.getSpec().getVersions().get(0);
        assertThat(v.getName()).isEqualTo("v1alpha1");
        assertThat(v.getSubresources().getStatus()).isNotNull();
        assertThat(v.getAdditionalPrinterColumns())
                .extracting(c -> c.getName() + "=" + c.getJsonPath())
                // the generator orders columns by jsonPath
                .containsExactlyInAnyOrder(
                        "Node=.spec.nodeName",
                        "Phase=.status.phase",
                        "Progress=.status.drainProgress",
                        "Waiting=.status.waitingFor",
                        "Reason=.spec.reason",
                        "Age=.metadata.creationTimestamp");

        JSONSchemaProps spec =
                v.getSchema().getOpenAPIV3Schema().getProperties().get("spec");
        assertThat(spec.getRequired()).containsExactly("nodeName");
        assertThat(spec.getProperties().get("nodeName").getXKubernetesValidations())
                .anySatisfy(r -> assertThat(r.getRule()).isEqualTo("self == oldSelf"));
        assertThat(spec.getProperties().get("window").getPattern()).isEqualTo(GoDuration.PATTERN);
        assertThat(spec.getProperties().get("reason").getXKubernetesValidations())
                .anySatisfy(r -> assertThat(r.getRule()).isEqualTo(UserText.NO_CONTROL_CHARACTERS_RULE));
        JSONSchemaProps drain = spec.getProperties().get("drain");
        assertThat(drain.getProperties())
                .containsKeys(
                        "timeout",
                        "gracePeriodSeconds",
                        "ignoreDaemonSets",
                        "deleteEmptyDirData",
                        "force",
                        "podSelector",
                        "evictionRetryDelay",
                        "skipWaitForDeleteTimeout",
                        "disableEviction");
        assertThat(spec.getProperties().get("handover").getProperties()).containsKeys("enabled", "timeout");
        assertThat(spec.getProperties().get("priority").getDescription())
                .as(
                        "spec.priority orders the queue of every cap the queue has (MaintenanceLimits), and says what counts")
                .contains(
                        "tenure.maintenance.max-nodes-in-maintenance ",
                        "tenure.maintenance.max-nodes-in-maintenance-per-topology",
                        "tenure.maintenance.topology-key",
                        "unavailable");

        JSONSchemaProps status =
                v.getSchema().getOpenAPIV3Schema().getProperties().get("status");
        assertThat(status.getProperties())
                .containsKeys(
                        "phase",
                        "conditions",
                        "drainProgress",
                        "totalpods",
                        "evictionPods",
                        "pendingPods",
                        "pendingPodsRefs",
                        "lastError",
                        "lastUpdate",
                        "errorOnLeaseCount",
                        "lease");
        assertThat(status.getProperties().get("lease").getProperties())
                .containsKeys("name", "namespace", "holderIdentity", "acquireTime", "renewTime", "expireTime");
    }
}
