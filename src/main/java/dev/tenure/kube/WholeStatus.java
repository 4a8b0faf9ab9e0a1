package dev.tenure.kube;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;

/**
 * The one way the operator writes the status of its own resources: a JSON patch (RFC 6902) of the status subresource
 * that replaces the whole status, on condition that the object is still at the resourceVersion the status was decided
 * from.
 *
 * <p>Why not a merge patch (fabric8's {@code patchStatus()}, RFC 7386): a field left out of a merge patch keeps its
 * stored value, and the status types are written {@code NON_NULL}, so a field that became null (an ETA, a gate that
 * opened) would stay on the object. {@code add /status} replaces the member whole and works whether or not a status
 * exists yet. The {@code replace /metadata/resourceVersion} operation is the precondition: kube-apiserver takes a
 * patched object whose resourceVersion is not the stored one as a 409 Conflict, as for an update (apiserver
 * {@code pkg/registry/generic/registry/store.go} Update; {@code pkg/endpoints/handlers/patch.go} applies the patch to
 * the stored object first), so a write someone made in between is never replaced unseen.
 */
public final class WholeStatus {

    private WholeStatus() {}

    /**
     * The JSON patch that replaces the status with {@code status} if the object is at {@code resourceVersion} (null:
     * unconditionally); send it to the object's {@code status} subresource as {@code application/json-patch+json}.
     * A 409 answer means nothing was written: read the object again and decide again.
     */
    public static String patch(KubernetesSerialization json, String resourceVersion, Object status) {
        String precondition = resourceVersion == null
                ? ""
                : "{\"op\":\"replace\",\"path\":\"/metadata/resourceVersion\",\"value\":" + json.asJson(resourceVersion)
                        + "},";
        return "[" + precondition + "{\"op\":\"add\",\"path\":\"/status\",\"value\":" + json.asJson(status) + "}]";
    }

    /**
     * Writes {@code status} as the whole status of the cluster-scoped {@code type} object {@code name}, on condition
     * that it is still at {@code resourceVersion} ({@link #patch}).
     *
     * @return the object as the API server answered
     * @throws Conflict the object was written since {@code resourceVersion} (409): nothing was written; read it again
     *     and decide again
     * @throws KubernetesClientException any other refusal or failure of the write
     */
    public static <T extends HasMetadata> T write(
            KubernetesClient client, Class<T> type, String name, String resourceVersion, Object status) {
        try {
            return client.resources(type)
                    .withName(name)
                    .subresource("status")
                    .patch(
                            PatchContext.of(PatchType.JSON),
                            patch(client.getKubernetesSerialization(), resourceVersion, status));
        } catch (KubernetesClientException e) {
            if (e.getCode() == 409) {
                throw new Conflict(HasMetadata.getKind(type), name, resourceVersion, e);
            }
            throw e;
        }
    }

    /**
     * A status write refused because the object changed since the version the decision was made from (409): nothing
     * was written; the caller reads it again and decides again.
     */
    public static final class Conflict extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Conflict(String kind, String name, String resourceVersion, KubernetesClientException cause) {
            super(
                    kind + " " + name + " changed since resourceVersion " + resourceVersion
                            + " the status was decided from",
                    cause);
        }
    }
}
