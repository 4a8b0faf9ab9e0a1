package dev.tenure.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tenure.rollout.api.RolloutSpec;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@link RolloutAdmission#unknownFields}: a field the rollout's API does not declare, anywhere in the spec, is named
 * with its path and the fields that exist there (the CRD prunes it, Jackson drops it: without this a typo would be
 * lost without a word). One row per place a typo can hide.
 */
class RolloutAdmissionTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', nullValues = "-", textBlock = """
            a spec the API declares whole                  | {"nodes":["a"],"maxUnavailable":"50%","doneWhen":{"rebooted":true},"health":{"soak":"1s","alerts":{"prometheusURL":"http://p:9090","include":["x"]}},"template":{"drain":{"timeout":"5m"}}} | -
            a null field is no unknown field               | {"nodes":["a"],"health":{"alerts":null}}                   | -
            a typo at the top                              | {"nodes":["a"],"pasued":true}                               | spec.pasued: unknown field (one of nodeSelector, nodes,
            a typo in doneWhen (as before)                 | {"doneWhen":{"rebooot":true}}                               | spec.doneWhen.rebooot: unknown field (one of rebooted, label, annotation, kubeletVersion, osImage, duration, manual, timeout)
            a typo under health                            | {"health":{"soakTimeOut":"1m"}}                             | spec.health.soakTimeOut: unknown field (one of soak, soakTimeout,
            a typo under health.alerts                     | {"health":{"alerts":{"prometheusUrl":"http://p:9090"}}}     | spec.health.alerts.prometheusUrl: unknown field (one of prometheusURL, include, exclude, firingOnly, interval)
            a typo in a selector (a fabric8 model type)    | {"nodeSelector":{"matchLabel":{"a":"b"}}}                   | spec.nodeSelector.matchLabel: unknown field (one of matchExpressions, matchLabels)
            a typo in a list element names its index       | {"nodeSelector":{"matchExpressions":[{"key":"k","operator":"Exists"},{"key":"k","operater":"Exists"}]}} | spec.nodeSelector.matchExpressions[1].operater: unknown field (one of key, operator, values)
            a typo deep in the child template              | {"template":{"drain":{"rules":[{"behaviour":"Skip"}]}}}     | spec.template.drain.rules[0].behaviour: unknown field
            a map's keys are data, not fields              | {"nodeSelector":{"matchLabels":{"anything":"goes"}}}        | -
            an int-or-string is a value, not an object     | {"nodes":["a"],"maxUnavailable":2}                          | -
            """)
    void unknownFieldsAreNamedWithTheirPath(String name, String spec, String expected) throws Exception {
        List<String> found = RolloutAdmission.unknownFields("spec", JSON.readTree(spec), RolloutSpec.class);
        if (expected == null) {
            assertThat(found).isEmpty();
        } else {
            assertThat(found).singleElement().asString().startsWith(expected);
        }
    }
}
