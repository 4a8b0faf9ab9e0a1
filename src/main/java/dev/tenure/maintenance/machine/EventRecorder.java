package dev.tenure.maintenance.machine;

import dev.tenure.kube.UserText;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Clock;
import java.util.Locale;
import org.jboss.logging.Logger;

/**
 * core/v1 Events, de-duplicated like client-go's recorder: the same (object, reason, message) bumps
 * {@code count} and {@code lastTimestamp} of one Event instead of creating another. The name is derived
 * from those three, so the de-duplication survives operator restarts. Best effort: a failure is logged,
 * never fails a reconcile.
 */
public final class EventRecorder {

    private static final Logger LOG = Logger.getLogger(EventRecorder.class);
    private final KubernetesClient client;
    private final Clock clock;

    public EventRecorder(KubernetesClient client, Clock clock) {
        this.client = client;
        this.clock = clock;
    }

    /**
     * {@code <object>.<reason>.<hash of object, reason, message>}, a DNS subdomain of at most 253 characters: the
     * object's part is shortened ({@link BoundedNames}) when the whole would be longer, as it is for an object
     * with a name of 253 characters (whose Events kube-apiserver refused, so it got none).
     */
    static String eventName(ObjectReference involved, String reason, String message) {
        String key =
                involved.getKind() + "/" + involved.getName() + "/" + involved.getUid() + "/" + reason + "/" + message;
        String suffix = ("." + reason.toLowerCase(Locale.ROOT) + "." + Integer.toHexString(key.hashCode()))
                .replaceAll("[^a-z0-9.-]", "-");
        String object = involved.getName().replaceAll("[^a-z0-9.-]", "-");
        return BoundedNames.shorten(object, BoundedNames.DNS_SUBDOMAIN_MAX - suffix.length()) + suffix;
    }

    public void record(ObjectReference involved, String type, String reason, String message) {
        String namespace = involved.getNamespace() == null ? "default" : involved.getNamespace();
        String name = eventName(involved, reason, message);
        String now = clock.instant().toString();
        try {
            var resource = client.v1().events().inNamespace(namespace).withName(name);
            Event existing = resource.get();
            if (existing != null) {
                int count = existing.getCount() == null ? 1 : existing.getCount();
                resource.patch(
                        PatchContext.of(PatchType.JSON_MERGE),
                        "{\"count\":" + (count + 1) + ",\"lastTimestamp\":\"" + now + "\"}");
                return;
            }
            client.v1()
                    .events()
                    .inNamespace(namespace)
                    .resource(new EventBuilder()
                            .withNewMetadata()
                            .withName(name)
                            .withNamespace(namespace)
                            .endMetadata()
                            .withInvolvedObject(involved)
                            .withType(type)
                            .withReason(reason)
                            .withMessage(UserText.printable(message)) // user text escaped: it reaches terminals
                            .withCount(1)
                            .withFirstTimestamp(now)
                            .withLastTimestamp(now)
                            .withNewSource()
                            .withComponent("tenure")
                            .endSource()
                            .withReportingComponent("tenure.dev/maintenance")
                            .withReportingInstance("tenure")
                            .build())
                    .create();
        } catch (KubernetesClientException e) {
            LOG.debugf(e, "event %s %s on %s not recorded", reason, message, involved.getName());
        }
    }
}
