package dev.tenure.maintenance;

import io.fabric8.kubernetes.api.model.LabelSelector;
import java.time.Duration;
import java.util.Optional;

/**
 * kubectl drain's options, resolved from {@link DrainSpec} with defaults applied and durations parsed.
 *
 * @param timeout whole-drain limit; empty = none
 * @param gracePeriodSeconds -1 = each pod's own
 * @param skipWaitForDeleteTimeout pods terminating longer than this count as gone; empty = wait
 */
public record DrainOptions(Optional<Duration> timeout, long gracePeriodSeconds, boolean ignoreDaemonSets,
        boolean deleteEmptyDirData, boolean force, LabelSelector podSelector, Duration evictionRetryDelay,
        Optional<Duration> skipWaitForDeleteTimeout, boolean disableEviction) {

    public static final Duration DEFAULT_EVICTION_RETRY_DELAY = Duration.ofSeconds(5);

    public DrainOptions {
        if (gracePeriodSeconds < -1) {
            throw new IllegalArgumentException("spec.drain.gracePeriodSeconds: must be -1 (pod's own) or >= 0, was "
                    + gracePeriodSeconds);
        }
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
        Duration skipWait = GoDuration.parseOrNull("spec.drain.skipWaitForDeleteTimeout", s.getSkipWaitForDeleteTimeout());
        if (retry != null && retry.isZero()) {
            throw new IllegalArgumentException("spec.drain.evictionRetryDelay: must be more than 0");
        }
        return new DrainOptions(
                Optional.ofNullable(timeout).filter(d -> !d.isZero()),
                s.getGracePeriodSeconds() == null ? -1 : s.getGracePeriodSeconds(),
                s.getIgnoreDaemonSets() == null || s.getIgnoreDaemonSets(),
                s.getDeleteEmptyDirData() == null || s.getDeleteEmptyDirData(),
                s.getForce() == null || s.getForce(),
                s.getPodSelector(),
                retry == null ? DEFAULT_EVICTION_RETRY_DELAY : retry,
                Optional.ofNullable(skipWait).filter(d -> !d.isZero()),
                Boolean.TRUE.equals(s.getDisableEviction()));
    }
}
