package dev.tenure.maintenance.drain;

import dev.tenure.maintenance.api.DrainBehavior;
import dev.tenure.maintenance.api.DrainRule;
import dev.tenure.maintenance.api.DrainSpec;
import dev.tenure.maintenance.api.Evacuation;
import dev.tenure.maintenance.api.GoDuration;
import dev.tenure.maintenance.api.PlacementPolicy;
import dev.tenure.maintenance.api.TimeoutOutcome;
import dev.tenure.maintenance.api.VolumeDetachSpec;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * kubectl drain's options, resolved from {@link DrainSpec} with defaults applied and durations parsed.
 *
 * @param timeout whole-drain limit; empty = none
 * @param gracePeriodSeconds -1 = each pod's own
 * @param skipWaitForDeleteTimeout pods terminating longer than this count as gone; empty = wait
 * @param rules each pod's behaviour and wave ({@code spec.drain.rules})
 * @param waitCompletedTimeout how long the drain waits for WaitCompleted pods, from its start; empty = no limit
 * @param volumeDetach the wait for the node's VolumeAttachments after the drain
 * @param onTimeout what {@code timeout} does ({@code spec.drain.onTimeout}); null: the stage's default (Fail)
 * @param waitCompletedOnTimeout what {@code waitCompletedTimeout} does; null: the stage's default (Fail)
 * @param placement what the placement forecast before the cordon does ({@code spec.drain.placement}; null: Warn)
 * @param evacuation how a pod whose budget allows no eviction is moved ({@code spec.drain.evacuation}; null: Evict)
 */
public record DrainOptions(
        Optional<Duration> timeout,
        long gracePeriodSeconds,
        boolean ignoreDaemonSets,
        boolean deleteEmptyDirData,
        boolean force,
        LabelSelector podSelector,
        Duration evictionRetryDelay,
        Optional<Duration> skipWaitForDeleteTimeout,
        boolean disableEviction,
        DrainRules rules,
        Optional<Duration> waitCompletedTimeout,
        VolumeDetach.Options volumeDetach,
        TimeoutOutcome onTimeout,
        TimeoutOutcome waitCompletedOnTimeout,
        PlacementPolicy placement,
        Evacuation evacuation) {

    public static final Duration DEFAULT_EVICTION_RETRY_DELAY = Duration.ofSeconds(5);

    public DrainOptions {
        if (gracePeriodSeconds < -1) {
            throw new IllegalArgumentException(
                    "spec.drain.gracePeriodSeconds: must be -1 (pod's own) or >= 0, was " + gracePeriodSeconds);
        }
        rules = rules == null ? DrainRules.none() : rules;
        waitCompletedTimeout = waitCompletedTimeout == null ? Optional.empty() : waitCompletedTimeout;
        volumeDetach = volumeDetach == null ? VolumeDetach.Options.off() : volumeDetach;
        placement = placement == null ? PlacementPolicy.Warn : placement;
        evacuation = evacuation == null ? Evacuation.Evict : evacuation;
    }

    /** As the canonical constructor, with the default evacuation (Evict). */
    public DrainOptions(
            Optional<Duration> timeout,
            long gracePeriodSeconds,
            boolean ignoreDaemonSets,
            boolean deleteEmptyDirData,
            boolean force,
            LabelSelector podSelector,
            Duration evictionRetryDelay,
            Optional<Duration> skipWaitForDeleteTimeout,
            boolean disableEviction,
            DrainRules rules,
            Optional<Duration> waitCompletedTimeout,
            VolumeDetach.Options volumeDetach,
            TimeoutOutcome onTimeout,
            TimeoutOutcome waitCompletedOnTimeout,
            PlacementPolicy placement) {
        this(
                timeout,
                gracePeriodSeconds,
                ignoreDaemonSets,
                deleteEmptyDirData,
                force,
                podSelector,
                evictionRetryDelay,
                skipWaitForDeleteTimeout,
                disableEviction,
                rules,
                waitCompletedTimeout,
                volumeDetach,
                onTimeout,
                waitCompletedOnTimeout,
                placement,
                Evacuation.Evict);
    }

    /** As the canonical constructor, with the default placement policy (Warn). */
    public DrainOptions(
            Optional<Duration> timeout,
            long gracePeriodSeconds,
            boolean ignoreDaemonSets,
            boolean deleteEmptyDirData,
            boolean force,
            LabelSelector podSelector,
            Duration evictionRetryDelay,
            Optional<Duration> skipWaitForDeleteTimeout,
            boolean disableEviction,
            DrainRules rules,
            Optional<Duration> waitCompletedTimeout,
            VolumeDetach.Options volumeDetach,
            TimeoutOutcome onTimeout,
            TimeoutOutcome waitCompletedOnTimeout) {
        this(
                timeout,
                gracePeriodSeconds,
                ignoreDaemonSets,
                deleteEmptyDirData,
                force,
                podSelector,
                evictionRetryDelay,
                skipWaitForDeleteTimeout,
                disableEviction,
                rules,
                waitCompletedTimeout,
                volumeDetach,
                onTimeout,
                waitCompletedOnTimeout,
                PlacementPolicy.Warn);
    }

    /** kubectl drain's options without rules: every pod Drain, waves by the default order (priority ascending). */
    public DrainOptions(
            Optional<Duration> timeout,
            long gracePeriodSeconds,
            boolean ignoreDaemonSets,
            boolean deleteEmptyDirData,
            boolean force,
            LabelSelector podSelector,
            Duration evictionRetryDelay,
            Optional<Duration> skipWaitForDeleteTimeout,
            boolean disableEviction) {
        this(
                timeout,
                gracePeriodSeconds,
                ignoreDaemonSets,
                deleteEmptyDirData,
                force,
                podSelector,
                evictionRetryDelay,
                skipWaitForDeleteTimeout,
                disableEviction,
                DrainRules.none(),
                Optional.empty(),
                VolumeDetach.Options.off(),
                null,
                null,
                PlacementPolicy.Warn);
    }

    /** Tenure's defaults: kubectl drain with --ignore-daemonsets --delete-emptydir-data --force. */
    public static DrainOptions defaults() {
        return from(null);
    }

    /** Resolves a spec (null = all defaults); bad values throw with the field named. */
    public static DrainOptions from(DrainSpec spec) {
        DrainSpec s = spec == null ? new DrainSpec() : spec;
        Duration timeout = GoDuration.parseOrNull("spec.drain.timeout", s.getTimeout());
        Duration retry = GoDuration.parseOrNull("spec.drain.evictionRetryDelay", s.getEvictionRetryDelay());
        Duration skipWait =
                GoDuration.parseOrNull("spec.drain.skipWaitForDeleteTimeout", s.getSkipWaitForDeleteTimeout());
        if (retry != null && retry.isZero()) {
            throw new IllegalArgumentException("spec.drain.evictionRetryDelay: must be more than 0");
        }
        checkSelector(s.getPodSelector(), "spec.drain.podSelector");
        Duration waitCompleted = GoDuration.parseOrNull("spec.drain.waitCompletedTimeout", s.getWaitCompletedTimeout());
        return new DrainOptions(
                Optional.ofNullable(timeout).filter(d -> !d.isZero()),
                s.getGracePeriodSeconds() == null ? -1 : s.getGracePeriodSeconds(),
                s.getIgnoreDaemonSets() == null || s.getIgnoreDaemonSets(),
                s.getDeleteEmptyDirData() == null || s.getDeleteEmptyDirData(),
                s.getForce() == null || s.getForce(),
                s.getPodSelector(),
                retry == null ? DEFAULT_EVICTION_RETRY_DELAY : retry,
                Optional.ofNullable(skipWait).filter(d -> !d.isZero()),
                Boolean.TRUE.equals(s.getDisableEviction()),
                rules(s.getRules()),
                Optional.ofNullable(waitCompleted).filter(d -> !d.isZero()),
                volumeDetach(s.getVolumeDetach()),
                s.getOnTimeout(),
                s.getWaitCompletedOnTimeout(),
                s.getPlacement(),
                s.getEvacuation());
    }

    private static DrainRules rules(List<DrainRule> rules) {
        if (rules == null) {
            return DrainRules.none();
        }
        List<DrainRules.Rule> resolved = new java.util.ArrayList<>();
        for (int i = 0; i < rules.size(); i++) {
            DrainRule r = rules.get(i);
            if (r == null) {
                throw new IllegalArgumentException("spec.drain.rules[" + i + "]: must not be null");
            }
            checkSelector(r.getNamespaceSelector(), "spec.drain.rules[" + i + "].namespaceSelector");
            checkSelector(r.getPodSelector(), "spec.drain.rules[" + i + "].podSelector");
            if (r.getOrder() != null && r.getBehavior() != null && r.getBehavior() != DrainBehavior.Drain) {
                // Cluster API's MachineDrainRule webhook refuses it too: a pod that is never evicted has no wave of
                // its own (a WaitCompleted pod is in wave 0)
                throw new IllegalArgumentException("spec.drain.rules[" + i + "].order: not allowed with behavior "
                        + r.getBehavior() + " (only a Drain rule has an order)");
            }
            resolved.add(
                    new DrainRules.Rule(r.getNamespaceSelector(), r.getPodSelector(), r.getBehavior(), r.getOrder()));
        }
        return new DrainRules(resolved);
    }

    private static VolumeDetach.Options volumeDetach(VolumeDetachSpec spec) {
        if (spec == null) {
            return VolumeDetach.Options.off();
        }
        Duration timeout = GoDuration.parseOrNull("spec.drain.volumeDetach.timeout", spec.getTimeout());
        return new VolumeDetach.Options(
                true,
                Optional.ofNullable(timeout).filter(d -> !d.isZero()),
                spec.getIgnoreAttachers() == null
                        ? java.util.Set.of()
                        : java.util.Set.copyOf(spec.getIgnoreAttachers()),
                spec.getOnTimeout());
    }

    private static final java.util.Set<String> OPERATORS = java.util.Set.of("In", "NotIn", "Exists", "DoesNotExist");

    /**
     * The selector as the API server's label-selector validation would take it (kubectl drain passes it to the
     * server): an operator it knows, values exactly when the operator needs them, no missing key. Checked when the
     * spec is read, so a bad selector fails the maintenance before anything is written to the Node.
     */
    private static void checkSelector(LabelSelector selector, String path) {
        if (selector == null) {
            return;
        }
        if (selector.getMatchLabels() != null) {
            selector.getMatchLabels().forEach((key, value) -> {
                if (key == null || key.isBlank() || value == null) {
                    throw new IllegalArgumentException(
                            path + ".matchLabels: a key and a value are " + "required, got " + key + "=" + value);
                }
            });
        }
        List<LabelSelectorRequirement> expressions =
                Objects.requireNonNullElse(selector.getMatchExpressions(), List.of());
        for (int i = 0; i < expressions.size(); i++) {
            LabelSelectorRequirement r = expressions.get(i);
            String field = path + ".matchExpressions[" + i + "]";
            if (r == null || r.getKey() == null || r.getKey().isBlank()) {
                throw new IllegalArgumentException(field + ".key: required");
            }
            if (!OPERATORS.contains(r.getOperator())) {
                throw new IllegalArgumentException(
                        field + ".operator: must be In, NotIn, Exists or DoesNotExist, was " + r.getOperator());
            }
            boolean hasValues = r.getValues() != null && !r.getValues().isEmpty();
            boolean needsValues =
                    r.getOperator().equals("In") || r.getOperator().equals("NotIn");
            if (hasValues != needsValues) {
                throw new IllegalArgumentException(field + ".values: "
                        + (needsValues
                                ? "required (non-empty) for operator " + r.getOperator()
                                : "must be empty for operator " + r.getOperator()));
            }
        }
    }
}
