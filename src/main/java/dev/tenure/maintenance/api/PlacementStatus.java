package dev.tenure.maintenance.api;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.List;
import java.util.Objects;

/**
 * {@code status.placement}: the placement forecast made before the cordon (and by a preview), bounded in size: the
 * counts per verdict, and at most {@link #MAX_PODS} of the pods that fit nowhere or are pinned, each with its message.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public class PlacementStatus {

    /** The pods named at most; the rest are counted in {@code podsNotListed}. */
    public static final int MAX_PODS = 10;

    @JsonPropertyDescription("spec.drain.placement as the forecast read it: Warn or Wait.")
    private String policy;

    @JsonPropertyDescription("Pods to evict whose replacement fits on a node that stays schedulable.")
    private Integer fits;

    @JsonPropertyDescription("Pods to evict whose replacement fits on no node that stays schedulable.")
    private Integer doesNotFit;

    @JsonPropertyDescription("Pods to evict that a volume ties to a node being cordoned.")
    private Integer pinned;

    @JsonPropertyDescription("Pods to evict that no controller recreates (they need no room).")
    private Integer notRecreated;

    @io.fabric8.generator.annotation.Size(max = MAX_PODS)
    @JsonPropertyDescription("Pods that fit nowhere or are pinned, at most 10, each with kube-scheduler's message.")
    private List<Pod> pods;

    @JsonPropertyDescription("Pods that fit nowhere or are pinned beyond those listed.")
    private Integer podsNotListed;

    @JsonPropertyDescription("Claims of the pods to evict, or their PersistentVolumes, that could not be read (a"
            + " refused or failed GET, or 404): at most 3 named (namespace/name: the answer), then how many more. Their"
            + " pods were forecast without those volumes; a failed read never holds or stops the drain.")
    private String volumesNotRead;

    @JsonPropertyDescription("Why the namespaces' labels could not be read (a refused or failed LIST), when an affinity"
            + " term of the pods needed them (a namespaceSelector other than {}): those terms were left out of the"
            + " forecast; a failed read never holds or stops the drain.")
    private String namespacesNotRead;

    public PlacementStatus() {}

    /** One pod that fits nowhere or is pinned. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public static class Pod {
        @JsonPropertyDescription("namespace/name.")
        private String pod;

        @JsonPropertyDescription("DoesNotFit or Pinned.")
        private String verdict;

        @JsonPropertyDescription("Why, in kube-scheduler's words (0/N nodes are available: ...).")
        private String message;

        public Pod() {}

        public Pod(String pod, String verdict, String message) {
            this.pod = pod;
            this.verdict = verdict;
            this.message = message;
        }

        public String getPod() {
            return pod;
        }

        public void setPod(String pod) {
            this.pod = pod;
        }

        public String getVerdict() {
            return verdict;
        }

        public void setVerdict(String verdict) {
            this.verdict = verdict;
        }

        public String getMessage() {
            return message;
        }

        public void setMessage(String message) {
            this.message = message;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Pod p
                    && Objects.equals(pod, p.pod)
                    && Objects.equals(verdict, p.verdict)
                    && Objects.equals(message, p.message);
        }

        @Override
        public int hashCode() {
            return Objects.hash(pod, verdict, message);
        }

        @Override
        public String toString() {
            return pod + " " + verdict + ": " + message;
        }
    }

    public String getPolicy() {
        return policy;
    }

    public void setPolicy(String policy) {
        this.policy = policy;
    }

    public Integer getFits() {
        return fits;
    }

    public void setFits(Integer fits) {
        this.fits = fits;
    }

    public Integer getDoesNotFit() {
        return doesNotFit;
    }

    public void setDoesNotFit(Integer doesNotFit) {
        this.doesNotFit = doesNotFit;
    }

    public Integer getPinned() {
        return pinned;
    }

    public void setPinned(Integer pinned) {
        this.pinned = pinned;
    }

    public Integer getNotRecreated() {
        return notRecreated;
    }

    public void setNotRecreated(Integer notRecreated) {
        this.notRecreated = notRecreated;
    }

    public List<Pod> getPods() {
        return pods;
    }

    public void setPods(List<Pod> pods) {
        this.pods = pods;
    }

    public Integer getPodsNotListed() {
        return podsNotListed;
    }

    public void setPodsNotListed(Integer podsNotListed) {
        this.podsNotListed = podsNotListed;
    }

    public String getVolumesNotRead() {
        return volumesNotRead;
    }

    public void setVolumesNotRead(String volumesNotRead) {
        this.volumesNotRead = volumesNotRead;
    }

    public String getNamespacesNotRead() {
        return namespacesNotRead;
    }

    public void setNamespacesNotRead(String namespacesNotRead) {
        this.namespacesNotRead = namespacesNotRead;
    }

    /** Pods that fit nowhere or are pinned. */
    public int stranded() {
        return (doesNotFit == null ? 0 : doesNotFit) + (pinned == null ? 0 : pinned);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PlacementStatus s
                && Objects.equals(policy, s.policy)
                && Objects.equals(fits, s.fits)
                && Objects.equals(doesNotFit, s.doesNotFit)
                && Objects.equals(pinned, s.pinned)
                && Objects.equals(notRecreated, s.notRecreated)
                && Objects.equals(pods, s.pods)
                && Objects.equals(podsNotListed, s.podsNotListed)
                && Objects.equals(volumesNotRead, s.volumesNotRead)
                && Objects.equals(namespacesNotRead, s.namespacesNotRead);
    }

    @Override
    public int hashCode() {
        return Objects.hash(
                policy, fits, doesNotFit, pinned, notRecreated, pods, podsNotListed, volumesNotRead, namespacesNotRead);
    }
}
