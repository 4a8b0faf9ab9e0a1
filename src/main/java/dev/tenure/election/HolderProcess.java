package dev.tenure.election;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/**
 * Which process holds a lease, as the holder itself writes it beside its holder identity (the adapter keeps it in an
 * annotation of the Lease, written in the same request as the holder): the pod and container it runs in, and
 * {@code since}, a reading of its own wall clock taken while it was running — the time of its first write as holder.
 * A contender ties that reading to one container instance of the pod's status ({@link ProcessEndRule}).
 *
 * <p>The value is self-identifying: it names the holder identity it belongs to, so a value left behind by an earlier
 * holder (or by a replica that does not write one) is never read as the current holder's.
 *
 * @param identity the holder identity this binding belongs to
 * @param namespace the pod's namespace
 * @param pod the pod's name
 * @param podUid the pod's UID (a pod deleted and created again under the same name is another pod)
 * @param container the container's name in the pod
 * @param since a wall-clock reading taken by the holding process while it ran (null until it first writes)
 */
public record HolderProcess(
        String identity, String namespace, String pod, String podUid, String container, Instant since) {

    /** The key of the Lease annotation the adapter keeps this in. */
    public static final String ANNOTATION = "tenure.dev/holder-process";

    public HolderProcess {
        for (String[] f : new String[][] {
            {"identity", identity}, {"namespace", namespace}, {"pod", pod}, {"podUid", podUid}, {"container", container}
        }) {
            if (f[1] == null || f[1].isBlank()) {
                throw new IllegalArgumentException("holder process: " + f[0] + " must be non-empty");
            }
        }
        for (String[] f :
                new String[][] {{"namespace", namespace}, {"pod", pod}, {"podUid", podUid}, {"container", container}}) {
            if (f[1].contains(" ")) {
                throw new IllegalArgumentException("holder process: " + f[0] + " must not contain a space: " + f[1]);
            }
        }
    }

    /** This binding with the holder's clock reading. */
    public HolderProcess withSince(Instant value) {
        return new HolderProcess(identity, namespace, pod, podUid, container, value);
    }

    /**
     * {@code pod=<namespace>/<name> uid=<uid> container=<name> since=<instant> holder=<identity>}: the identity last,
     * since it is the one part that may contain spaces.
     */
    public String format() {
        return "pod=" + namespace + "/" + pod + " uid=" + podUid + " container=" + container + " since="
                + (since == null ? "" : since.toString()) + " holder=" + identity;
    }

    /** The binding written as {@link #format()}, or empty when the value is absent or not in that form. */
    public static Optional<HolderProcess> parse(String value) {
        if (value == null) {
            return Optional.empty();
        }
        String[] parts = value.split(" ", 5);
        if (parts.length != 5
                || !parts[0].startsWith("pod=")
                || !parts[1].startsWith("uid=")
                || !parts[2].startsWith("container=")
                || !parts[3].startsWith("since=")
                || !parts[4].startsWith("holder=")) {
            return Optional.empty();
        }
        String[] pod = parts[0].substring("pod=".length()).split("/", 2);
        String since = parts[3].substring("since=".length());
        try {
            return pod.length != 2
                    ? Optional.empty()
                    : Optional.of(new HolderProcess(
                            parts[4].substring("holder=".length()),
                            pod[0],
                            pod[1],
                            parts[1].substring("uid=".length()),
                            parts[2].substring("container=".length()),
                            since.isEmpty() ? null : Instant.parse(since)));
        } catch (IllegalArgumentException | DateTimeParseException e) {
            return Optional.empty();
        }
    }
}
