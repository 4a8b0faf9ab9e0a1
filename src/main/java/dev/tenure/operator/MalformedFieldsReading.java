package dev.tenure.operator;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tenure.maintenance.api.MalformedFields;
import io.quarkus.kubernetes.client.KubernetesClientObjectMapperCustomizer;
import jakarta.inject.Singleton;

/**
 * Every client of the operator (the informers', the fenced work clients', the webhook's) reads a NodeMaintenance
 * with wrong-typed fields as one with those fields absent and noted ({@link MalformedFields}), so that one such object
 * gets a status naming its field instead of stopping the controller's informer for all of them.
 */
@Singleton
public class MalformedFieldsReading implements KubernetesClientObjectMapperCustomizer {
    @Override
    public void customize(ObjectMapper mapper) {
        mapper.registerModule(new MalformedFields());
    }
}
