package dev.tenure.coordination;

import dev.tenure.election.CandidateRecord;
import dev.tenure.kube.UserText;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Clock;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.jboss.logging.Logger;

/**
 * Warning Events on LeaseCandidates whose spec the controller cannot use (conflicting strategies, unparsable
 * versions), so {@code kubectl describe leasecandidate} says why a Lease is not elected. Each problem is reported
 * once per candidate and message (the memory is only about what was already said, never about the election). A
 * message quotes the candidate's spec (its {@code binaryVersion}, its strategy), user text, so it is written with its
 * control characters escaped ({@link UserText#printable}), as every other event of the operator.
 */
final class CandidateEvents {

    static final String CONFLICTING_STRATEGY = "ConflictingStrategy";
    static final String INVALID_VERSION = "InvalidVersion";

    private static final Logger LOG = Logger.getLogger(CandidateEvents.class);

    private final KubernetesClient client;
    private final Clock clock;
    private final String apiVersion;
    private final Map<String, String> reported = new ConcurrentHashMap<>();

    CandidateEvents(KubernetesClient client, Clock clock, String apiVersion) {
        this.client = client;
        this.clock = clock;
        this.apiVersion = apiVersion;
    }

    void warn(CandidateRecord c, String reason, String message) {
        String key = c.namespace() + "/" + c.name() + "/" + reason;
        if (message.equals(reported.put(key, message))) {
            return;
        }
        String now = DateTimeFormatter.ISO_INSTANT.format(
                clock.instant().atOffset(ZoneOffset.UTC).withNano(0).toInstant());
        Event event = new EventBuilder()
                .withNewMetadata()
                .withNamespace(c.namespace())
                .withName(c.name() + "." + UUID.randomUUID().toString().substring(0, 8))
                .endMetadata()
                .withNewInvolvedObject()
                .withApiVersion(apiVersion)
                .withKind("LeaseCandidate")
                .withNamespace(c.namespace())
                .withName(c.name())
                .withResourceVersion(c.resourceVersion())
                .endInvolvedObject()
                .withType("Warning")
                .withReason(reason)
                .withMessage(UserText.printable(message)) // a candidate's versions are user text: escaped
                .withFirstTimestamp(now)
                .withLastTimestamp(now)
                .withCount(1)
                .withNewSource()
                .withComponent("tenure-coordination")
                .endSource()
                .withReportingComponent("tenure.dev/coordination")
                .build();
        try {
            client.v1().events().inNamespace(c.namespace()).resource(event).create();
        } catch (KubernetesClientException e) {
            reported.remove(key); // say it again next time
            LOG.debugf("event %s on %s/%s not written: %s", reason, c.namespace(), c.name(), e.getMessage());
        }
    }

    /** The problem is gone: a recurrence is reported again. */
    void resolved(CandidateRecord c, String reason) {
        reported.remove(c.namespace() + "/" + c.name() + "/" + reason);
    }
}
