package dev.tenure.election.kube;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.election.LeaseConflict;
import dev.tenure.election.LeaseKey;
import dev.tenure.election.LeaseStoreException;
import dev.tenure.election.LeaseStoreFailure;
import io.fabric8.kubernetes.client.KubernetesClientException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class KubeErrorsTest {
    @ParameterizedTest(name = "HTTP {0}, creating={1} -> {2}")
    @CsvSource({
        "409, true,  LeaseConflict",
        "409, false, LeaseConflict",
        "404, false, LeaseNotFound",
        "404, true,  LeaseStoreFailure",
        "500, false, LeaseStoreFailure",
        "429, true,  LeaseStoreFailure"
    })
    void mapsStatusToTypedErrors(int code, boolean creating, String type) {
        LeaseStoreException e =
                KubeErrors.map(LeaseKey.of("ns", "l"), new KubernetesClientException("x", code, null), creating);
        assertThat(e.getClass().getSimpleName()).isEqualTo(type);
        if (e instanceof LeaseConflict c) {
            assertThat(c.alreadyExists()).isEqualTo(creating);
        }
        if (e instanceof LeaseStoreFailure f) {
            assertThat(f.status()).isEqualTo(code);
        }
    }
}
