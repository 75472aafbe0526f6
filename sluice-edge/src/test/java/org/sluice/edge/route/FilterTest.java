package org.sluice.edge.route;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.sluice.edge.settings.Problems;

/** Each predicate and combinator over headers and JSON bodies, non-JSON bodies and missing paths. */
class FilterTest {

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    /** The config tree a flow-form text reads to. */
    static Object yaml(String flow) {
        try {
            return YAML.readValue(flow, Object.class);
        } catch (java.io.IOException e) {
            throw new AssertionError(flow, e);
        }
    }

    static Filter filter(String flow) {
        Problems problems = new Problems();
        Filter f = FilterReader.read(yaml(flow), "when", problems);
        assertThat(problems.list()).as(flow).isEmpty();
        return f;
    }

    static boolean passes(String flow, String body, String... headers) {
        Map<String, String> h = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        for (int i = 0; i < headers.length; i += 2) {
            h.put(headers[i], headers[i + 1]);
        }
        return filter(flow).test(new HookFacts(h::get, body.getBytes(StandardCharsets.UTF_8)));
    }

    private static final String INVOICE = """
            {"type":"invoice.paid","n":1.0,"live":false,"nothing":null,
             "data":{"object":{"livemode":true,"lines":[{"id":"li_1"},{"id":"li_2"}]}},"a.b":{"c d":"x"}}""";

    @Test
    void equalsComparesStringsNumbersAndBooleansByKind() {
        assertThat(passes("{json: \"$.type\", equals: invoice.paid}", INVOICE)).isTrue();
        assertThat(passes("{json: \"$.type\", equals: invoice}", INVOICE)).isFalse();
        assertThat(passes("{json: \"$.n\", equals: 1}", INVOICE)).isTrue(); // 1 and 1.0 are one number
        assertThat(passes("{json: \"$.n\", equals: \"1\"}", INVOICE)).isFalse(); // a string is not a number
        assertThat(passes("{json: \"$.live\", equals: false}", INVOICE)).isTrue();
        assertThat(passes("{json: \"$.data.object.livemode\", equals: true}", INVOICE)).isTrue();
        assertThat(passes("{json: \"$.data.object.lines[1].id\", equals: li_2}", INVOICE)).isTrue();
        assertThat(passes("{json: \"$.data.object.lines[2].id\", equals: li_2}", INVOICE)).isFalse();
        assertThat(passes("{json: \"$['a.b']['c d']\", equals: x}", INVOICE)).isTrue();
    }

    @Test
    void inPrefixMatchesAndExists() {
        assertThat(passes("{json: \"$.type\", in: [invoice.paid, invoice.payment_failed]}", INVOICE)).isTrue();
        assertThat(passes("{json: \"$.type\", in: [charge.succeeded]}", INVOICE)).isFalse();
        assertThat(passes("{json: \"$.type\", prefix: invoice.}", INVOICE)).isTrue();
        assertThat(passes("{json: \"$.data\", prefix: invoice.}", INVOICE)).isFalse(); // not a string
        assertThat(passes("{json: \"$.type\", matches: \"^invoice\\\\.(paid|void)$\"}", INVOICE)).isTrue();
        assertThat(passes("{json: \"$.type\", matches: \"paid\"}", INVOICE)).isTrue(); // found anywhere
        assertThat(passes("{json: \"$.type\", matches: \"^paid\"}", INVOICE)).isFalse();
        assertThat(passes("{json: \"$.nothing\", exists: true}", INVOICE)).isTrue(); // a JSON null is there
        assertThat(passes("{json: \"$.missing.deeper\", exists: false}", INVOICE)).isTrue();
        assertThat(passes("{json: \"$.type\", exists: false}", INVOICE)).isFalse();
    }

    @Test
    void headersAreMatchedByNameWhateverTheCase() {
        assertThat(passes("{header: X-GitHub-Event, equals: push}", "", "x-github-event", "push")).isTrue();
        assertThat(passes("{header: X-GitHub-Event, in: [issues, pull_request]}", "", "X-GITHUB-EVENT", "push")).isFalse();
        assertThat(passes("{header: X-GitHub-Event, exists: true}", "")).isFalse();
        assertThat(passes("{header: X-Count, equals: 3}", "", "X-Count", "3")).isTrue(); // a header compares the text
        assertThat(passes("{header: X-GitHub-Event, prefix: pull}", "", "X-GitHub-Event", "pull_request")).isTrue();
        assertThat(passes("{header: X-GitHub-Event, matches: \"^pu(sh|ll)\"}", "", "X-GitHub-Event", "push")).isTrue();
    }

    @Test
    void aBodyThatIsNotJsonMatchesNoJsonPredicateEvenExistsFalse() {
        for (String body : List.of("", "type=invoice.paid", "{\"type\":\"invoice.paid\"", "{\"type\":\"invoice.paid\"} trailing",
                "[".repeat(HookFacts.MAX_DEPTH + 1) + "]".repeat(HookFacts.MAX_DEPTH + 1))) {
            assertThat(passes("{json: \"$.type\", equals: invoice.paid}", body)).as(body).isFalse();
            assertThat(passes("{json: \"$.type\", exists: false}", body)).as(body).isFalse();
            assertThat(passes("{not: {json: \"$.type\", exists: true}}", body)).as(body).isTrue();
        }
    }

    @Test
    void combinators() {
        String audit = "{any: [{header: X-GitHub-Event, equals: push}, {json: \"$.data.object.livemode\", equals: true}]}";
        assertThat(passes(audit, INVOICE)).isTrue();
        assertThat(passes(audit, "{}", "X-GitHub-Event", "push")).isTrue();
        assertThat(passes(audit, "{}", "X-GitHub-Event", "issues")).isFalse();
        String both = "{all: [{json: \"$.type\", prefix: invoice}, {not: {json: \"$.live\", equals: true}}]}";
        assertThat(passes(both, INVOICE)).isTrue();
        assertThat(passes(both, "{\"type\":\"invoice.paid\",\"live\":true}")).isFalse();
    }

    @Test
    void theTextIsTheFlowFormAndReadsBackToTheSameFilter() {
        String flow = "{any: [{header: \"X-GitHub-Event\", equals: \"push\"}, {all: [{json: \"$.a[0]\", in: [\"x\", 2, true]},"
                + " {not: {json: \"$.b\", exists: false}}, {json: \"$.c\", matches: \"^a\\\\d+\"}, {json: \"$.d\", prefix: \"in\"}]}]}";
        Filter f = filter(flow);
        assertThat(f.text()).isEqualTo(flow);
        assertThat(filter(f.text()).text()).isEqualTo(flow);
    }

    @Test
    void aPathDeeperThanTheBodyAndAPathThroughAScalarFindNothing() {
        assertThat(passes("{json: \"$.type.deeper\", exists: true}", INVOICE)).isFalse();
        assertThat(passes("{json: \"$[0]\", exists: true}", INVOICE)).isFalse();
        assertThat(passes("{json: \"$[0]\", equals: 7}", "[7]")).isTrue();
        assertThat(passes("{json: \"$\", equals: hi}", "\"hi\"")).isTrue();
    }
}
