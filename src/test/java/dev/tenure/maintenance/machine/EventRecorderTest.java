package dev.tenure.maintenance.machine;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class EventRecorderTest {

    /** kube-apiserver's DNS subdomain check (IsDNS1123Subdomain): at most 253 characters of this grammar. */
    private static final String DNS_SUBDOMAIN = "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";

    private static ObjectReference ref(String name) {
        return new ObjectReferenceBuilder()
                .withKind("NodeMaintenance")
                .withName(name)
                .withUid("uid-1")
                .build();
    }

    /** Issue 38: an object with a 253-character name got no events at all (the Event's name was over 253). */
    @ParameterizedTest(name = "name of {0} characters")
    @ValueSource(ints = {1, 63, 200, 230, 240, 252, 253})
    void anEventNameIsAValidDnsSubdomainWhateverTheObjectsNameLength(int length) {
        String objectName = ("a" + "b.c-d".repeat(60)).substring(0, length - 1) + "z";
        String name = EventRecorder.eventName(ref(objectName), "EvictionBlocked", "pod x refused");
        assertThat(name).hasSizeLessThanOrEqualTo(253).matches(DNS_SUBDOMAIN);
    }

    @Test
    void aShortNameIsKeptWholeAndLongNamesStayApart() {
        assertThat(EventRecorder.eventName(ref("nm-1"), "Drained", "done")).startsWith("nm-1.drained.");
        String a = "a".repeat(252) + "1";
        String b = "a".repeat(252) + "2";
        assertThat(EventRecorder.eventName(ref(a), "Drained", "done"))
                .isNotEqualTo(EventRecorder.eventName(ref(b), "Drained", "done"));
    }

    @Test
    void theSameObjectReasonAndMessageGiveTheSameName() {
        String long1 = "n".repeat(253);
        assertThat(EventRecorder.eventName(ref(long1), "Drained", "done"))
                .isEqualTo(EventRecorder.eventName(ref(long1), "Drained", "done"))
                .isNotEqualTo(EventRecorder.eventName(ref(long1), "Drained", "other"));
    }
}
