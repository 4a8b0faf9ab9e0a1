package dev.tenure.election;

import java.time.Instant;

/**
 * One ended run of a container, as its kubelet reports it in the pod's status ({@code state.terminated}, or
 * {@code lastState.terminated} once the container has restarted). Times are the container runtime's, on the node's
 * clock, in whole seconds (the API's {@code metav1.Time}).
 *
 * @param container the container's name in the pod
 * @param containerId the runtime's ID of that run ({@code containerd://…}); null or blank when the kubelet did not
 *     know it (its "ContainerStatusUnknown" placeholder)
 * @param startedAt when that run started, null when unknown
 * @param finishedAt when it ended, null when unknown
 * @param exitCode its exit code
 * @param reason the kubelet's reason: {@code OOMKilled}, {@code Error}, {@code Completed}, ...
 */
public record ContainerEnd(
        String container, String containerId, Instant startedAt, Instant finishedAt, int exitCode, String reason) {}
