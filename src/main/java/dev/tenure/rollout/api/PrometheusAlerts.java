package dev.tenure.rollout.api;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.tenure.maintenance.api.GoDuration;
import io.fabric8.generator.annotation.Pattern;
import java.util.List;

/**
 * The rollout's alert gate, Kured's Prometheus blocker ({@code pkg/blockers/prometheus.go}): while an alert that
 * counts is active in Prometheus, or Prometheus cannot be asked, no new node starts. {@code exclude} is Kured's
 * {@code --alert-filter-regexp}, {@code include} the same flag with {@code --alert-filter-match-only}, {@code
 * firingOnly} its {@code --alert-firing-only} (here on by default).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public class PrometheusAlerts {

    @Pattern("^https?://.+")
    @JsonPropertyDescription("Kured's --prometheus-url: the Prometheus (or a server of its HTTP API: Thanos Querier,"
            + " Mimir, VictoriaMetrics) asked for ALERTS, e.g. http://prometheus-k8s.monitoring:9090. Required.")
    private String prometheusURL;

    @JsonPropertyDescription("Alert-name regexes (RE2 syntax, unanchored: \"Node\" matches NodeDown; anchor with ^…$"
            + " for a whole name). When set, only alerts whose name one of them matches count (Kured's"
            + " --alert-filter-regexp with --alert-filter-match-only). Empty: every alert counts.")
    private List<String> include;

    @JsonPropertyDescription(
            "Alert-name regexes (RE2 syntax, unanchored): an alert whose name one of them matches never"
                    + " counts, e.g. the rollout's own alerts (Kured's --alert-filter-regexp). Applied after include.")
    private List<String> exclude;

    @JsonPropertyDescription("true (default): only firing alerts count, pending ones (their 'for' not yet elapsed) do"
            + " not (Kured's --alert-firing-only, whose default is false). false: pending alerts count too.")
    private Boolean firingOnly;

    @Pattern(GoDuration.PATTERN)
    @JsonPropertyDescription("While the gate is closed, Prometheus is asked again after this long (a Go duration, 1s to"
            + " 1h; default 10s). An open answer is never reused: it is asked before each node starts.")
    private String interval;

    public String getPrometheusURL() {
        return prometheusURL;
    }

    public void setPrometheusURL(String prometheusURL) {
        this.prometheusURL = prometheusURL;
    }

    public List<String> getInclude() {
        return include;
    }

    public void setInclude(List<String> include) {
        this.include = include;
    }

    public List<String> getExclude() {
        return exclude;
    }

    public void setExclude(List<String> exclude) {
        this.exclude = exclude;
    }

    public Boolean getFiringOnly() {
        return firingOnly;
    }

    public void setFiringOnly(Boolean firingOnly) {
        this.firingOnly = firingOnly;
    }

    public String getInterval() {
        return interval;
    }

    public void setInterval(String interval) {
        this.interval = interval;
    }
}
