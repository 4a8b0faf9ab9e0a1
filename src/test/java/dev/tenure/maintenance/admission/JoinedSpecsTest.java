package dev.tenure.maintenance.admission;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.maintenance.api.DrainSpec;
import dev.tenure.maintenance.api.HandoverSpec;
import dev.tenure.maintenance.api.HooksSpec;
import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.NodeMaintenanceSpec;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.api.ScheduleSpec;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Issue 37: a joiner whose spec asks for what the owner does not run is refused, naming the fields. */
class JoinedSpecsTest {

    static final String MUST_EQUAL =
            ": must equal those of NodeMaintenance owner, whose maintenance of the node it joins (spec.join) and which"
                    + " alone runs it";

    static NodeMaintenance owner() {
        NodeMaintenanceSpec spec = new NodeMaintenanceSpec("w1", "kernel upgrade");
        spec.setWindow("2h");
        DrainSpec drain = new DrainSpec();
        drain.setTimeout("30m");
        spec.setDrain(drain);
        spec.setSchedule(new ScheduleSpec("2026-01-01T00:00:00Z", null));
        return new NodeMaintenance("owner", spec);
    }

    static NodeMaintenance joiner(Consumer<NodeMaintenanceSpec> edit) {
        NodeMaintenance nm = owner();
        nm.getMetadata().setName("joiner");
        nm.getSpec().setJoin(true);
        nm.getSpec().setReason("firmware too");
        edit.accept(nm.getSpec());
        return nm;
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of("same spec, own reason and join", (Consumer<NodeMaintenanceSpec>) s -> {}, null),
                Arguments.of("own priority: a joiner takes no place in the queue", c(s -> s.setPriority(7)), null),
                Arguments.of("no schedule of its own: it joins now", c(s -> s.setSchedule(null)), null),
                Arguments.of("another window", c(s -> s.setWindow("1h")), "spec.window" + MUST_EQUAL),
                Arguments.of("no window", c(s -> s.setWindow(null)), "spec.window" + MUST_EQUAL),
                Arguments.of("another drain", c(s -> s.getDrain().setTimeout("0s")), "spec.drain" + MUST_EQUAL),
                Arguments.of("a handover", c(s -> s.setHandover(new HandoverSpec())), null),
                Arguments.of(
                        "a handover that asks for something",
                        c(s -> {
                            HandoverSpec h = new HandoverSpec();
                            h.setEnabled(false);
                            s.setHandover(h);
                        }),
                        "spec.handover" + MUST_EQUAL),
                Arguments.of("a hooks timeout", c(s -> s.setHooks(new HooksSpec("5m"))), "spec.hooks" + MUST_EQUAL),
                Arguments.of(
                        "a schedule of its own",
                        c(s -> s.setSchedule(new ScheduleSpec("2026-02-01T00:00:00Z", null))),
                        "spec.schedule" + MUST_EQUAL),
                Arguments.of(
                        "every field named at once",
                        c(s -> {
                            s.setWindow("1h");
                            s.setDrain(null);
                            s.setHooks(new HooksSpec("5m"));
                        }),
                        "spec.window, spec.drain, spec.hooks" + MUST_EQUAL));
    }

    static Consumer<NodeMaintenanceSpec> c(Consumer<NodeMaintenanceSpec> edit) {
        return edit;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void aJoinerMustAskForWhatTheOwnerRuns(String name, Consumer<NodeMaintenanceSpec> edit, String refusal) {
        assertThat(JoinedSpecs.refusal(joiner(edit), owner())).isEqualTo(Optional.ofNullable(refusal));
    }

    @Test
    void anEmptyDrainAsksForNothingMoreThanNone() {
        NodeMaintenance plain = new NodeMaintenance("owner", new NodeMaintenanceSpec("w1", "a"));
        NodeMaintenance joiner = new NodeMaintenance("joiner", new NodeMaintenanceSpec("w1", "b"));
        joiner.getSpec().setDrain(new DrainSpec());
        assertThat(JoinedSpecs.refusal(joiner, plain)).isEmpty();
    }

    @Test
    void aJoinerCarriesNoHooksOfItsOwn() {
        NodeMaintenance joiner = joiner(s -> {});
        joiner.getMetadata()
                .setAnnotations(Map.of(
                        "pre-uncordon.hooks.tenure.dev/check", "", "pre-drain.hooks.tenure.dev/rook", "", "other", ""));
        assertThat(JoinedSpecs.refusal(joiner, owner()))
                .contains("metadata.annotations: pre-drain.hooks.tenure.dev/rook, pre-uncordon.hooks.tenure.dev/check:"
                        + " a joining NodeMaintenance carries no hooks (they would hold nothing); put them on owner");
    }

    /** The webhook's word on a CREATE: the owner is found through a joiner ahead of the candidate. */
    @Test
    void theWebhookRefusesADifferingJoinerComparedWithTheOwner() {
        MaintenanceLimits one = new MaintenanceLimits(OptionalInt.of(1), OptionalInt.empty());
        NodeMaintenance owner = owner();
        owner.getMetadata().setCreationTimestamp("2026-01-01T00:00:00Z");
        owner.getStatus().setPhase(Phase.Running);
        NodeMaintenance firstJoiner = joiner(s -> {});
        firstJoiner.getMetadata().setName("first");
        firstJoiner.getMetadata().setCreationTimestamp("2026-01-01T00:00:01Z");
        firstJoiner.getStatus().setPhase(Phase.Running);
        firstJoiner.getStatus().setJoinedTo("owner");
        NodeMaintenanceValidator.ClusterView view = NodeMaintenanceValidatorTest.view("w1", firstJoiner, owner);

        NodeMaintenance differs = joiner(s -> s.setWindow("1h"));
        NodeMaintenanceValidator.Verdict admitted = NodeMaintenanceValidator.review(differs, null, view, one);
        assertThat(admitted.refusals()).as("the validator alone lets it join").isEmpty();
        assertThat(JoinedSpecs.review(differs, admitted, view.ahead()).refusals())
                .containsExactly("spec.window" + MUST_EQUAL);

        NodeMaintenance same = joiner(s -> {});
        NodeMaintenanceValidator.Verdict joins = NodeMaintenanceValidator.review(same, null, view, one);
        assertThat(JoinedSpecs.review(same, joins, view.ahead())).isSameAs(joins);
        NodeMaintenance notJoining = joiner(s -> s.setJoin(null));
        NodeMaintenanceValidator.Verdict duplicate = NodeMaintenanceValidator.review(notJoining, null, view, one);
        assertThat(JoinedSpecs.review(notJoining, duplicate, view.ahead())).isSameAs(duplicate);
    }
}
