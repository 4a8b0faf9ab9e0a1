package dev.tenure.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The premise of {@link Conflicts}, on the emulated cluster: fabric8's {@code edit()} patches with the resourceVersion
 * it read, so another writer's write between its read and its patch makes it a 409 that changes nothing (as
 * kube-apiserver answers it); {@link Conflicts#retry} makes the edit again on a fresh read and keeps both writes. The
 * other writer writes from inside the edit's function, after the read: the race every time, not once in a while.
 */
@EndToEnd
@SecondLane
class ConflictsIT {
    private static EmulatedCluster cluster;
    private static KubernetesClient client;

    @BeforeAll
    static void start() {
        cluster = EmulatedCluster.start();
        client = cluster.client();
        cluster.seed().namespace("conflicts");
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void anEditRacedByAnotherWriteIsRefusedWhole() {
        create("raced-once");
        assertThatThrownBy(() -> edit("raced-once", racedOnce("raced-once", new AtomicInteger())))
                .isInstanceOfSatisfying(
                        KubernetesClientException.class,
                        e -> assertThat(e.getCode()).isEqualTo(409));
        assertThat(read("raced-once"))
                .as("the other write landed, the edit none of its change")
                .containsEntry("other", "1")
                .containsEntry("mine", "0");
    }

    @Test
    void retryMakesTheEditAgainOnAFreshReadAndKeepsBothWrites() {
        create("retried");
        AtomicInteger tries = new AtomicInteger();
        Conflicts.retry(() -> edit("retried", racedOnce("retried", tries)));
        assertThat(tries).as("the edit's function ran on two reads").hasValue(2);
        assertThat(read("retried")).containsEntry("other", "1").containsEntry("mine", "2");
    }

    private static void create(String name) {
        client.configMaps()
                .inNamespace("conflicts")
                .resource(new ConfigMapBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .endMetadata()
                        .addToData("mine", "0")
                        .build())
                .create();
    }

    /** Sets mine=2; on its first call another writer sets other=1 first, after this edit's read. */
    private static UnaryOperator<ConfigMap> racedOnce(String name, AtomicInteger tries) {
        return cm -> {
            if (tries.incrementAndGet() == 1) {
                client.configMaps().inNamespace("conflicts").withName(name).edit(other -> {
                    other.getData().put("other", "1");
                    return other;
                });
            }
            cm.getData().put("mine", "2");
            return cm;
        };
    }

    private static ConfigMap edit(String name, UnaryOperator<ConfigMap> change) {
        return client.configMaps().inNamespace("conflicts").withName(name).edit(change);
    }

    private static Map<String, String> read(String name) {
        return client.configMaps().inNamespace("conflicts").withName(name).get().getData();
    }
}
