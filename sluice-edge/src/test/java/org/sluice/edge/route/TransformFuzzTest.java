package org.sluice.edge.route;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.sluice.edge.settings.Problems;

/**
 * Fuzz target for transformations: a {@code transform} document built from its own key
 * names with fuzzed values (hostile templates, paths, header names, nested bodies, limits),
 * applied to a fuzzed body (raw bytes or JSON-shaped text). The contract: the reader gives a
 * transformation or adds non-blank problems naming the key and gives null; applying never
 * throws; a shaped request keeps within {@code max_output_bytes}, its path starts with
 * {@code /} and stays one path (no {@code ?} or {@code #}), and no header value holds a
 * control character; a failure has a reason.
 */
@Tag("fuzz")
class TransformFuzzTest {

    private static final String[] KEYS = {"method", "path", "query", "headers", "body", "time_limit_ms",
        "max_output_bytes", "x", "X-Event", "kind"};
    private static final String[] WORDS = {"/", "/e/{$.type}", "{$}", "{$.a}", "{$.a.b}", "{$['a.b']}", "{$[0]}", "{tenant}",
        "{source}", "{hook_id}", "{{", "}}", "{", "}", "{$..a}", "{type}", "/a b", "/a?b", "put", "GET", "TRACE", "%",
        "\r\n", "\u00e9", "", "X-Event", "content-type", "webhook-id"};

    @FuzzTest(maxDuration = "30s")
    void aTransformIsReadOrRefusedAndAppliesWithinItsBounds(FuzzedDataProvider data) {
        Object raw = FilterFuzzTest.value(data, 0, 5, KEYS, WORDS);
        byte[] body = data.consumeBoolean() ? data.consumeRemainingAsBytes()
                : data.consumeRemainingAsString().getBytes(StandardCharsets.UTF_8);

        Problems problems = new Problems();
        Transform t = TransformReader.read(raw, "transform", problems);
        if (t == null) {
            assertThat(problems.list()).isNotEmpty().allSatisfy(m -> assertThat(m).isNotBlank().contains("transform"));
            return;
        }
        assertThat(problems.list()).isEmpty();
        long max = raw instanceof Map<?, ?> m && m.get("max_output_bytes") instanceof Number n ? n.longValue()
                : Transform.DEFAULT_MAX_OUTPUT_BYTES;
        Transform.Outcome o = t.apply(new Transform.Input("id", "acme", "src", body), System::nanoTime);
        if (o instanceof Transform.Outcome.Failed f) {
            assertThat(f.reason()).isNotBlank();
            return;
        }
        Transform.Request r = ((Transform.Outcome.Shaped) o).request();
        long size = (r.body() == null ? 0 : r.body().length) + (r.path() == null ? 0 : r.path().length())
                + (r.query() == null ? 0 : r.query().length());
        for (Map.Entry<String, String> h : r.headers()) {
            size += h.getValue().length();
            assertThat(h.getValue().chars().noneMatch(c -> c < 0x20 && c != '\t' || c == 0x7f)).as(h.getKey()).isTrue();
        }
        assertThat(size).isLessThanOrEqualTo(max);
        if (r.path() != null) {
            assertThat(r.path()).startsWith("/").doesNotContain("?", "#");
        }
    }
}
