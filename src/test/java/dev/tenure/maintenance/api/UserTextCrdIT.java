package dev.tenure.maintenance.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.testsupport.EmulatedCluster;
import dev.tenure.testsupport.EndToEnd;
import io.fabric8.kubernetes.client.KubernetesClientException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 50 item 5 at the API server: the generated CRD's CEL rule on {@code spec.reason} refuses control characters
 * with a 422 naming the field, whoever writes (no webhook here), and lets ordinary text, non-ASCII included, through.
 */
@EndToEnd
class UserTextCrdIT {

    static EmulatedCluster cluster;

    @BeforeAll
    static void start() throws java.io.IOException {
        cluster = EmulatedCluster.start(EmulatedCluster.Options.forTests());
        // the CRD as shipped (deploy/, which bin/sync-generated --check keeps equal to the build's)
        try (java.io.InputStream in =
                java.nio.file.Files.newInputStream(java.nio.file.Path.of("deploy", "tenure-operator.yaml"))) {
            cluster.client().load(in).items().stream()
                    .filter(o -> o.getKind().equals("CustomResourceDefinition"))
                    .forEach(crd -> cluster.client().resource(crd).create());
        }
        cluster.seed().node("w1").role("worker").create();
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    @Test
    void aReasonWithAnEscapeSequenceOrANulIsRefusedNamingTheField() {
        for (String reason : new String[] {"a\u001b[31mb\u0000c", "two\nlines", "csi \u009b2J"}) {
            NodeMaintenance nm = new NodeMaintenance("bad-" + reason.length(), new NodeMaintenanceSpec("w1", reason));
            assertThatThrownBy(() -> cluster.client().resource(nm).create())
                    .isInstanceOfSatisfying(KubernetesClientException.class, e -> {
                        assertThat(e.getCode()).isEqualTo(422);
                        assertThat(e.getMessage()).contains("spec.reason", "must not contain control characters");
                    });
        }
        assertThat(cluster.client().resources(NodeMaintenance.class).list().getItems())
                .isEmpty();
    }

    @Test
    void ordinaryTextIsAccepted() {
        NodeMaintenance nm =
                new NodeMaintenance("fine", new NodeMaintenanceSpec("w1", "Wartung für Kärnten: BIOS 2.1"));
        assertThat(cluster.client().resource(nm).create().getSpec().getReason())
                .isEqualTo("Wartung für Kärnten: BIOS 2.1");
    }
}
