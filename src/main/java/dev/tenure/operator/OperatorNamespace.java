package dev.tenure.operator;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The namespace the operator runs in: home of its own Lease and, by default, of the node leases. From the
 * downward API ({@code POD_NAMESPACE}), else the service account's mounted namespace, else
 * {@code tenure-system} (the plain manifests' namespace; also what tests and {@code make run} use).
 */
public final class OperatorNamespace {

    static final Path SERVICE_ACCOUNT_NAMESPACE = Path.of("/var/run/secrets/kubernetes.io/serviceaccount/namespace");
    static final String FALLBACK = "tenure-system";

    private OperatorNamespace() {}

    public static String current() {
        return Optional.ofNullable(System.getenv("POD_NAMESPACE"))
                .filter(s -> !s.isBlank())
                .or(OperatorNamespace::serviceAccountNamespace)
                .orElse(FALLBACK);
    }

    private static Optional<String> serviceAccountNamespace() {
        try {
            return Files.isReadable(SERVICE_ACCOUNT_NAMESPACE)
                    ? Optional.of(Files.readString(SERVICE_ACCOUNT_NAMESPACE).trim())
                            .filter(s -> !s.isEmpty())
                    : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }
}
