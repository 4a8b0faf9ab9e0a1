package dev.tenure.maintenance.machine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.api.PlacementPolicy;
import dev.tenure.maintenance.api.PlacementStatus;
import dev.tenure.maintenance.drain.DrainOptions;
import dev.tenure.placement.PlacementForecast;
import dev.tenure.placement.PlacementForecast.PodForecast;
import dev.tenure.placement.PlacementForecast.Verdict;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Issue 49: what the placement forecast before the cordon decides, per spec.drain.placement. */
class PlacementGateTest {

    static final String MSG = "0/3 nodes are available: 1 node(s) were unschedulable, 2 Insufficient cpu.";

    static PodForecast pod(String name, Verdict verdict) {
        return new PodForecast("ns", name, "n1", verdict, verdict == Verdict.DOES_NOT_FIT ? MSG : "fits on 2/3 nodes");
    }

    static PlacementForecast forecast(Verdict... verdicts) {
        List<PodForecast> pods = new ArrayList<>();
        for (int i = 0; i < verdicts.length; i++) {
            pods.add(pod("p" + i, verdicts[i]));
        }
        return new PlacementForecast(pods);
    }

    static final PlacementForecast ALL_FIT = forecast(Verdict.FITS, Verdict.NOT_RECREATED);
    static final PlacementForecast ONE_STRANDED = forecast(Verdict.FITS, Verdict.DOES_NOT_FIT);

    static Stream<Arguments> rows() {
        PlacementStatus waitStranded = PlacementGate.status(PlacementPolicy.Wait, ONE_STRANDED);
        PlacementStatus warnStranded = PlacementGate.status(PlacementPolicy.Warn, ONE_STRANDED);
        return Stream.of(
                // policy, forecast, prior, hold, warning, released
                Arguments.of("Warn: all fit", PlacementPolicy.Warn, ALL_FIT, null, false, false, false),
                Arguments.of("Warn: one stranded, new", PlacementPolicy.Warn, ONE_STRANDED, null, false, true, false),
                Arguments.of(
                        "Warn: unchanged, said once",
                        PlacementPolicy.Warn,
                        ONE_STRANDED,
                        warnStranded,
                        false,
                        false,
                        false),
                Arguments.of("Wait: all fit", PlacementPolicy.Wait, ALL_FIT, null, false, false, false),
                Arguments.of("Wait: one stranded, new", PlacementPolicy.Wait, ONE_STRANDED, null, true, true, false),
                Arguments.of(
                        "Wait: still stranded, said once",
                        PlacementPolicy.Wait,
                        ONE_STRANDED,
                        waitStranded,
                        true,
                        false,
                        false),
                Arguments.of(
                        "Wait: fits now, released", PlacementPolicy.Wait, ALL_FIT, waitStranded, false, false, true),
                Arguments.of(
                        "Wait: policy changed to Warn while held",
                        PlacementPolicy.Warn,
                        ONE_STRANDED,
                        waitStranded,
                        false,
                        true,
                        false),
                Arguments.of(
                        "Wait: pinned holds too",
                        PlacementPolicy.Wait,
                        forecast(Verdict.PINNED),
                        null,
                        true,
                        true,
                        false));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void decides(
            String row,
            PlacementPolicy policy,
            PlacementForecast forecast,
            PlacementStatus prior,
            boolean hold,
            boolean warning,
            boolean released) {
        PlacementGate.Decision d = PlacementGate.decide(policy, "n1", forecast, prior);
        assertThat(d.hold()).as("hold").isEqualTo(hold);
        assertThat(d.warning()).as("warning").isEqualTo(warning ? d.warning() : java.util.Optional.empty());
        assertThat(d.warning().isPresent()).as("warning").isEqualTo(warning);
        assertThat(d.released().isPresent()).as("released").isEqualTo(released);
        assertThat(d.status().getPolicy()).isEqualTo(policy.name());
        d.warning()
                .ifPresent(w -> assertThat(w)
                        .contains("node n1", "spec.drain.placement " + policy)
                        .contains(forecast.stranded().get(0).namespace() + "/"
                                + forecast.stranded().get(0).name()));
    }

    @Test
    void theStatusCountsEachVerdictAndNamesTheStrandedPodsWithTheSchedulersMessage() {
        PlacementStatus s = PlacementGate.status(
                PlacementPolicy.Warn,
                forecast(Verdict.FITS, Verdict.FITS, Verdict.DOES_NOT_FIT, Verdict.PINNED, Verdict.NOT_RECREATED));
        assertThat(s.getFits()).isEqualTo(2);
        assertThat(s.getDoesNotFit()).isEqualTo(1);
        assertThat(s.getPinned()).isEqualTo(1);
        assertThat(s.getNotRecreated()).isEqualTo(1);
        assertThat(s.getPods())
                .extracting(PlacementStatus.Pod::getPod, PlacementStatus.Pod::getVerdict)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("ns/p2", "DoesNotFit"),
                        org.assertj.core.groups.Tuple.tuple("ns/p3", "Pinned"));
        assertThat(s.getPods().get(0).getMessage()).isEqualTo(MSG);
        assertThat(s.getPodsNotListed()).isNull();
        assertThat(PlacementGate.conditionMessage(s))
                .startsWith("2 pod(s) to evict fit no node")
                .contains("ns/p2: " + MSG);
    }

    @Test
    void theStatusIsBounded() {
        Verdict[] many =
                IntStream.range(0, 25).mapToObj(i -> Verdict.DOES_NOT_FIT).toArray(Verdict[]::new);
        PlacementStatus s = PlacementGate.status(PlacementPolicy.Wait, forecast(many));
        assertThat(s.getDoesNotFit()).isEqualTo(25);
        assertThat(s.getPods()).hasSize(PlacementStatus.MAX_PODS);
        assertThat(s.getPodsNotListed()).isEqualTo(25 - PlacementStatus.MAX_PODS);
        assertThat(PlacementGate.conditionMessage(s)).startsWith("25 pod(s)").endsWith("; ...");
    }

    /**
     * The Warning names the setting that governs the policy at the door that asked: a NodeMaintenance's field, the
     * annotation door's operator setting (the annotation carries no policy), never the other door's.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("doors")
    void theWarningNamesTheSettingOfItsDoor(String door, String setting, String otherDoorsSetting) {
        for (PlacementPolicy policy : List.of(PlacementPolicy.Warn, PlacementPolicy.Wait)) {
            String warning = PlacementGate.decide(policy, setting, "n1", ONE_STRANDED, null)
                    .warning()
                    .orElseThrow();
            assertThat(warning).contains("; " + setting + " " + policy + ": ").doesNotContain(otherDoorsSetting);
        }
    }

    static Stream<Arguments> doors() {
        return Stream.of(
                Arguments.of(
                        "NodeMaintenance",
                        PlacementView.SPEC_DRAIN_PLACEMENT,
                        "tenure.maintenance.annotation.placement"),
                Arguments.of(
                        "lifecycle.metal3.io/maintenance annotation",
                        "tenure.maintenance.annotation.placement",
                        PlacementView.SPEC_DRAIN_PLACEMENT));
    }

    @Test
    void namespacesNotReadAreSaidAndNeverHold() {
        PlacementForecast f = new PlacementForecast(
                ALL_FIT.pods(), List.of(), java.util.Optional.of("list namespaces: HTTP 403 Forbidden"));
        PlacementGate.Decision d = PlacementGate.decide(PlacementPolicy.Wait, "n1", f, null);
        assertThat(d.hold()).isFalse();
        assertThat(d.status().getNamespacesNotRead())
                .isEqualTo("list namespaces: HTTP 403 Forbidden (forecast without the affinity terms that select"
                        + " namespaces by label: they passed)");
        assertThat(PlacementGate.status(PlacementPolicy.Wait, ALL_FIT).getNamespacesNotRead())
                .isNull();
    }

    @Test
    void claimsNotReadAreNamedBoundedAndNeverHold() {
        List<String> notRead = IntStream.range(0, 5)
                .mapToObj(i -> "ns/data-" + i + ": get persistentvolumeclaim: HTTP 403 Forbidden")
                .toList();
        PlacementForecast f = new PlacementForecast(ALL_FIT.pods(), notRead);
        PlacementGate.Decision d = PlacementGate.decide(PlacementPolicy.Wait, "n1", f, null);
        assertThat(d.hold()).isFalse();
        assertThat(d.warning()).isEmpty();
        assertThat(d.status().getVolumesNotRead())
                .startsWith("ns/data-0: get persistentvolumeclaim: HTTP 403 Forbidden; ns/data-1: ")
                .contains("ns/data-2: ", "; and 2 more (forecast without these volumes")
                .doesNotContain("ns/data-3");
        assertThat(PlacementGate.status(PlacementPolicy.Wait, ALL_FIT).getVolumesNotRead())
                .isNull();
    }

    @Test
    void theStatusCarriesTheForecastAndItsCondition() {
        PlacementStatus placement = PlacementGate.status(PlacementPolicy.Wait, ONE_STRANDED);
        MaintenanceState state =
                MaintenanceState.initial().toBuilder().placement(placement).build();
        var status = NodeMaintenanceStatuses.toStatus(state, null, 1, Instant.EPOCH);
        assertThat(status.getPlacement()).isEqualTo(placement);
        assertThat(status.getConditions())
                .filteredOn(c -> PlacementGate.PODS_FIT.equals(c.getType()))
                .singleElement()
                .satisfies(c -> {
                    assertThat(c.getStatus()).isEqualTo("False");
                    assertThat(c.getReason()).isEqualTo(PlacementGate.WILL_NOT_FIT);
                    assertThat(c.getMessage()).contains("ns/p1: " + MSG);
                });
        assertThat(NodeMaintenanceStatuses.toState(status).placement()).isEqualTo(placement);
        // no forecast (Ignore): no condition
        assertThat(NodeMaintenanceStatuses.toStatus(MaintenanceState.initial(), null, 1, Instant.EPOCH)
                        .getConditions())
                .noneMatch(c -> PlacementGate.PODS_FIT.equals(c.getType()));
    }

    static MaintenanceRequest request(PlacementPolicy policy) {
        var spec = new dev.tenure.maintenance.api.DrainSpec();
        spec.setPlacement(policy);
        return new MaintenanceRequest("n1", "", java.util.Optional.empty(), DrainOptions.from(spec), null);
    }

    @Test
    void theForecastIsMadeBeforeTheLeaseUnlessIgnoredOrTheNodeIsHeld() {
        MaintenanceState fresh = MaintenanceState.initial();
        MaintenanceState held = fresh.toBuilder()
                .leaseAcquiredAt(Instant.EPOCH)
                .phase(Phase.Running)
                .build();
        MaintenanceState waitingForLease = fresh.toBuilder()
                .phase(Phase.Waiting)
                .placement(PlacementGate.status(PlacementPolicy.Warn, ALL_FIT))
                .build();
        assertThat(MaintenanceMachine.forecastsBeforeLease(request(PlacementPolicy.Warn), fresh))
                .isTrue();
        assertThat(MaintenanceMachine.forecastsBeforeLease(request(null), fresh))
                .as("default Warn")
                .isTrue();
        assertThat(MaintenanceMachine.forecastsBeforeLease(request(PlacementPolicy.Wait), fresh))
                .isTrue();
        assertThat(MaintenanceMachine.forecastsBeforeLease(request(PlacementPolicy.Ignore), fresh))
                .isFalse();
        assertThat(MaintenanceMachine.forecastsBeforeLease(request(PlacementPolicy.Wait), held))
                .isFalse();
        assertThat(MaintenanceMachine.forecastsBeforeLease(request(PlacementPolicy.Warn), waitingForLease))
                .as("Warn keeps its forecast while the lease is held elsewhere")
                .isFalse();
        assertThat(MaintenanceMachine.forecastsBeforeLease(request(PlacementPolicy.Wait), waitingForLease))
                .isTrue();
    }

    /** The annotation door (its lease kept by the caller): the forecast at the first step only, before the cordon. */
    @Test
    void aMaintenanceWhoseLeaseTheCallerKeepsForecastsAtItsFirstStepOnly() {
        MaintenanceState fresh = MaintenanceState.initial();
        MaintenanceState started = fresh.toBuilder()
                .leaseAcquiredAt(Instant.EPOCH)
                .phase(Phase.Running)
                .placement(PlacementGate.status(PlacementPolicy.Warn, ALL_FIT))
                .build();
        MaintenanceState heldByWait = started.toBuilder().phase(Phase.Pending).build();
        assertThat(MaintenanceMachine.forecastsBeforeCordon(request(null), fresh))
                .as("default Warn, nothing done yet")
                .isTrue();
        assertThat(MaintenanceMachine.forecastsBeforeCordon(request(null), started))
                .as("once per maintenance")
                .isFalse();
        assertThat(MaintenanceMachine.forecastsBeforeCordon(request(PlacementPolicy.Ignore), fresh))
                .isFalse();
        assertThat(MaintenanceMachine.forecastsBeforeCordon(request(PlacementPolicy.Wait), heldByWait))
                .as("Wait forecasts again while it holds")
                .isTrue();
    }
}
