package dev.tenure.maintenance.machine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The rights the operator asks for with SelfSubjectAccessReviews before it surges are exactly the rules of the opt-in
 * ClusterRole it ships ({@code tenure-operator-surge}): a right asked for and not shipped would keep the feature off
 * for every admin who binds the role; a right shipped and not asked for would let the surge start and fail mid-drain
 * for an admin who grants less.
 */
class SurgeAccessTest {

    @Test
    void theRightsAskedForAreExactlyTheShippedOptInRole() throws IOException {
        Set<SurgeAccess.Right> shipped = new HashSet<>();
        ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
        try (var docs = yaml.readerFor(JsonNode.class)
                .readValues(Files.readString(Path.of("src/main/kubernetes/kubernetes.yml")))) {
            while (docs.hasNext()) {
                JsonNode d = (JsonNode) docs.next();
                if (d == null
                        || !"ClusterRole".equals(d.path("kind").asText())
                        || !"tenure-operator-surge"
                                .equals(d.at("/metadata/name").asText())) {
                    continue;
                }
                for (JsonNode rule : d.path("rules")) {
                    for (JsonNode group : rule.path("apiGroups")) {
                        for (JsonNode resource : rule.path("resources")) {
                            String[] parts = resource.asText().split("/", 2);
                            for (JsonNode verb : rule.path("verbs")) {
                                shipped.add(new SurgeAccess.Right(
                                        group.asText(), parts[0], parts.length > 1 ? parts[1] : "", verb.asText()));
                            }
                        }
                    }
                }
            }
        }
        assertThat(shipped).isNotEmpty().containsExactlyInAnyOrderElementsOf(SurgeAccess.RIGHTS);
    }
}
