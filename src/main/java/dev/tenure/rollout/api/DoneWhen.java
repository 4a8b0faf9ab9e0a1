package dev.tenure.rollout.api;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.tenure.maintenance.api.GoDuration;
import io.fabric8.generator.annotation.Pattern;

/** The signal that a node's maintenance is done: exactly one field set. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public class DoneWhen {

    /** The annotation a person (or agent) sets on a child NodeMaintenance to acknowledge its node done. */
    public static final String MANUAL_ACK_ANNOTATION = "rollout.tenure.dev/done";

    @JsonPropertyDescription("true: the node rebooted (status.nodeInfo.bootID differs from the one recorded when its"
            + " maintenance started, Kured's sign of a reboot) and is Ready.")
    private Boolean rebooted;

    @JsonPropertyDescription("key=value: the node carries this label. A node that carries it before it starts is"
            + " done without maintenance.")
    private String label;

    @JsonPropertyDescription("key=value: the node carries this annotation. A node that carries it before it starts"
            + " is done without maintenance.")
    private String annotation;

    @JsonPropertyDescription("The node's status.nodeInfo.kubeletVersion equals this (e.g. v1.31.2). A node already"
            + " at it is done without maintenance.")
    private String kubeletVersion;

    @JsonPropertyDescription(
            "The node's status.nodeInfo.osImage equals this. A node already at it is done without" + " maintenance.")
    private String osImage;

    @Pattern(GoDuration.PATTERN)
    @JsonPropertyDescription(
            "A Go duration: done this long after the child NodeMaintenance reached Succeeded (drained).")
    private String duration;

    @JsonPropertyDescription("true: done when the child NodeMaintenance carries the annotation rollout.tenure.dev/done"
            + " = \"true\" (a person's acknowledgement).")
    private Boolean manual;

    @Pattern(GoDuration.PATTERN)
    @JsonPropertyDescription("A Go duration: a node not done this long after its maintenance started has failed"
            + " (counts against spec.failureBudget). Default: no limit.")
    private String timeout;

    public Boolean getRebooted() {
        return rebooted;
    }

    public void setRebooted(Boolean rebooted) {
        this.rebooted = rebooted;
    }

    public String getLabel() {
        return label;
    }

    public void setLabel(String label) {
        this.label = label;
    }

    public String getAnnotation() {
        return annotation;
    }

    public void setAnnotation(String annotation) {
        this.annotation = annotation;
    }

    public String getKubeletVersion() {
        return kubeletVersion;
    }

    public void setKubeletVersion(String kubeletVersion) {
        this.kubeletVersion = kubeletVersion;
    }

    public String getOsImage() {
        return osImage;
    }

    public void setOsImage(String osImage) {
        this.osImage = osImage;
    }

    public String getDuration() {
        return duration;
    }

    public void setDuration(String duration) {
        this.duration = duration;
    }

    public Boolean getManual() {
        return manual;
    }

    public void setManual(Boolean manual) {
        this.manual = manual;
    }

    public String getTimeout() {
        return timeout;
    }

    public void setTimeout(String timeout) {
        this.timeout = timeout;
    }
}
