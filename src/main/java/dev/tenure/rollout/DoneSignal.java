package dev.tenure.rollout;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/** When a node's maintenance is done ({@code spec.doneWhen}): one signal, judged purely from what was observed. */
public sealed interface DoneSignal {

    /** Whether the node is done now; {@code progress} is the node's record (started, its boot ID before). */
    boolean done(PoolNode node, NodeProgress progress, ChildView child, Instant now);

    /** Whether a node that has not started is done already (a version or label it carries): it is skipped. */
    default boolean doneBeforeStart(PoolNode node) {
        return false;
    }

    /** When to look again for a signal that becomes true by time alone; null when none does. */
    default Instant dueAt(NodeProgress progress) {
        return null;
    }

    /** Kured's sign of a reboot: {@code status.nodeInfo.bootID} changed since the maintenance started, and Ready. */
    record Rebooted() implements DoneSignal {
        @Override
        public boolean done(PoolNode node, NodeProgress progress, ChildView child, Instant now) {
            return node.ready()
                    && node.bootID() != null
                    && progress.bootIDBefore() != null
                    && !node.bootID().equals(progress.bootIDBefore());
        }
    }

    /** The node carries label {@code key=value} (system-upgrade-controller's plan label, an agent's mark). */
    record Label(String key, String value) implements DoneSignal {
        @Override
        public boolean done(PoolNode node, NodeProgress progress, ChildView child, Instant now) {
            return doneBeforeStart(node);
        }

        @Override
        public boolean doneBeforeStart(PoolNode node) {
            return Objects.equals(node.labels().get(key), value);
        }
    }

    /** The node carries annotation {@code key=value}. */
    record Annotation(String key, String value) implements DoneSignal {
        @Override
        public boolean done(PoolNode node, NodeProgress progress, ChildView child, Instant now) {
            return doneBeforeStart(node);
        }

        @Override
        public boolean doneBeforeStart(PoolNode node) {
            return Objects.equals(node.annotations().get(key), value);
        }
    }

    /** {@code status.nodeInfo.kubeletVersion} equals the value. */
    record KubeletVersion(String version) implements DoneSignal {
        @Override
        public boolean done(PoolNode node, NodeProgress progress, ChildView child, Instant now) {
            return doneBeforeStart(node);
        }

        @Override
        public boolean doneBeforeStart(PoolNode node) {
            return version.equals(node.kubeletVersion());
        }
    }

    /** {@code status.nodeInfo.osImage} equals the value. */
    record OsImage(String image) implements DoneSignal {
        @Override
        public boolean done(PoolNode node, NodeProgress progress, ChildView child, Instant now) {
            return doneBeforeStart(node);
        }

        @Override
        public boolean doneBeforeStart(PoolNode node) {
            return image.equals(node.osImage());
        }
    }

    /** A fixed time after the child drained (phase Succeeded first seen). */
    record AfterDrained(Duration duration) implements DoneSignal {
        @Override
        public boolean done(PoolNode node, NodeProgress progress, ChildView child, Instant now) {
            Instant due = dueAt(progress);
            return due != null && !now.isBefore(due);
        }

        @Override
        public Instant dueAt(NodeProgress progress) {
            return progress.drainedAt() == null ? null : progress.drainedAt().plus(duration);
        }
    }

    /** A person's acknowledgement: the child carries {@code rollout.tenure.dev/done: "true"}. */
    record Manual() implements DoneSignal {
        @Override
        public boolean done(PoolNode node, NodeProgress progress, ChildView child, Instant now) {
            return child != null && child.acknowledged();
        }
    }
}
