package dev.tenure.testsupport;

import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * The opt-in ClusterRole {@code tenure-operator-surge} exactly as shipped in {@code deploy/tenure-operator.yaml}, bound
 * to the operator's service account as an admin binds it (issue 51: the surge's rights are never in the operator's own
 * role). One copy for every test and bench row that lets the surge run, so each grants what the release grants.
 */
public final class ShippedSurgeRole {
    /** The role's name, and the binding's. */
    public static final String NAME = "tenure-operator-surge";

    private static volatile ClusterRole shipped;

    private ShippedSurgeRole() {}

    /** The role as deploy/ ships it (read once: the file holds the CRDs too); a copy the caller may change. */
    public static ClusterRole role() {
        ClusterRole role = shipped;
        if (role == null) {
            role = read();
            shipped = role;
        }
        return new ClusterRoleBuilder(role).build();
    }

    /** Creates the shipped role and a ClusterRoleBinding of it to {@code namespace/serviceAccount}. */
    public static void bind(KubernetesClient client, String namespace, String serviceAccount) {
        ClusterRole role = role();
        role.getMetadata().setResourceVersion(null);
        client.rbac().clusterRoles().resource(role).create();
        client.rbac()
                .clusterRoleBindings()
                .resource(new ClusterRoleBindingBuilder()
                        .withNewMetadata()
                        .withName(NAME)
                        .endMetadata()
                        .withNewRoleRef()
                        .withApiGroup("rbac.authorization.k8s.io")
                        .withKind("ClusterRole")
                        .withName(NAME)
                        .endRoleRef()
                        .addNewSubject()
                        .withKind("ServiceAccount")
                        .withName(serviceAccount)
                        .withNamespace(namespace)
                        .endSubject()
                        .build())
                .create();
    }

    private static ClusterRole read() {
        // load() parses here: the client never connects
        try (InputStream in = new FileInputStream("deploy/tenure-operator.yaml");
                KubernetesClient parser = EmulatedCluster.clientBuilder()
                        .withConfig(Config.empty())
                        .build()) {
            return parser.load(in).items().stream()
                    .filter(o -> o instanceof ClusterRole
                            && NAME.equals(o.getMetadata().getName()))
                    .map(ClusterRole.class::cast)
                    .findFirst()
                    .orElseThrow(() -> new IllegalStateException("deploy/tenure-operator.yaml ships no " + NAME));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
