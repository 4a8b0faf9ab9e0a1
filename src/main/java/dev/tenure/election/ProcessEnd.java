package dev.tenure.election;

import java.util.Locale;

/** Whether the process holding a lease is known to have ended: {@link ProcessEndRule}'s verdict. */
public sealed interface ProcessEnd {

    /** How the holder's container ended, as a bounded set (a metric label). */
    enum Reason {
        /** The kernel's OOM killer (kubelet reason {@code OOMKilled}). */
        OOM_KILLED,
        /** Exited with a non-zero code, or was killed by a signal (kill -9: 137). */
        FAILED,
        /** Exited with code 0. */
        EXITED;

        /** The metric label: {@code oom_killed}, {@code failed}, {@code exited}. */
        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }

        static Reason of(ContainerEnd end) {
            if ("OOMKilled".equals(end.reason())) {
                return OOM_KILLED;
            }
            return end.exitCode() == 0 ? EXITED : FAILED;
        }
    }

    /**
     * The holder's process has ended: the run of its container that was running when the holder read its clock has
     * terminated.
     */
    record Ended(String pod, ContainerEnd run, Reason reason) implements ProcessEnd {
        /** One line for logs and events. */
        public String describe() {
            return "container " + run.container() + " of pod " + pod + " (" + run.containerId() + ") "
                    + (run.reason() == null ? "terminated" : run.reason()) + " with exit code " + run.exitCode()
                    + " at " + run.finishedAt();
        }
    }

    /** No positive evidence: wait out the lease as always. {@code why} says what was missing. */
    record Unknown(String why) implements ProcessEnd {}
}
