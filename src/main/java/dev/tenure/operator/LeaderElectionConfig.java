package dev.tenure.operator;

import io.smallrye.config.WithDefault;
import java.time.Duration;
import java.util.Optional;

/** {@code tenure.leader-election.*}: operator HA on the election core. */
public interface LeaderElectionConfig {

    /** Off: reconcilers start at once (single replica, or local runs). */
    @WithDefault("true")
    boolean enabled();

    /** Namespace of the lease; default: the pod's namespace (POD_NAMESPACE or the service account's), else tenure-system. */
    Optional<String> namespace();

    @WithDefault("tenure-operator")
    String leaseName();

    /** Holder identity; default: HOSTNAME (the pod name) plus a random suffix, so a restarted pod is a new contender. */
    Optional<String> identity();

    /** Contenders wait this long after the lease last changed before taking it. */
    @WithDefault("15s")
    Duration leaseDuration();

    /** The leader gives up (and the process exits) when it could not renew for this long. */
    @WithDefault("10s")
    Duration renewDeadline();

    @WithDefault("2s")
    Duration retryPeriod();

    /** Liveness fails when leading and not renewed for leaseDuration + this. */
    @WithDefault("20s")
    Duration healthGrace();

    /**
     * Liveness fails when this replica has led this long without its reconcilers started (a start that hangs, e.g.
     * an informer that never syncs): the restart hands leadership to another replica.
     */
    @WithDefault("3m")
    Duration startLimit();

    /** {@code tenure.leader-election.evidence-of-death.*}: take over a dead leader's lease on its kubelet's word. */
    EvidenceOfDeath evidenceOfDeath();

    /**
     * A standby takes the lease before it expires when the API server shows that the leader's container run ended
     * (dev.tenure.election.ProcessEndRule); everything else waits out the lease.
     */
    interface EvidenceOfDeath {
        /**
         * Off: this replica neither writes its process binding beside the holder nor reads pods, and waits out every
         * lease (client-go behaviour). Both sides must be on for the early takeover: the holder writes, the standby reads.
         */
        @WithDefault("true")
        boolean enabled();

        /** The operator's container in its pod (the Deployment's container name). */
        @WithDefault("tenure-operator")
        String containerName();
    }
}
