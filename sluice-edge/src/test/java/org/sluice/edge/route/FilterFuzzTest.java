package org.sluice.edge.route;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.sluice.edge.settings.Problems;

/**
 * Fuzz target for {@code deliver_to} filters: a filter document built from the filter's own
 * key names with fuzzed values of every YAML type (maps where lists belong, nested
 * combinators, hostile JSON paths and regular expressions), evaluated over a fuzzed body
 * (raw bytes, or JSON-shaped text) and header. The contract: the reader gives a filter or
 * adds non-blank problems and gives null, nothing else; evaluating never throws; a filter's
 * text reads back to a filter with the same text and the same verdict.
 */
@Tag("fuzz")
class FilterFuzzTest {

    private static final String[] KEYS = {"all", "any", "not", "json", "header", "equals", "in", "prefix", "exists",
        "matches", "event_type", "destination", "when", "x"};
    private static final String[] WORDS = {"$", "$.type", "$.a.b", "$['a.b']", "$[0]", "$.a[1].b", "$..a", "$[", "$['",
        "type", "X-Kind", "x kind", "push", "invoice.", "^a+$", "(a+)+$", "(a)\\1", "(?=a)", "[", "\\", "", "a|b", "\u00e9"};

    @FuzzTest(maxDuration = "30s")
    void aFilterIsReadOrRefusedAndEvaluatesWithoutAnError(FuzzedDataProvider data) {
        Object raw = value(data, 0);
        String header = data.consumeBoolean() ? null : data.consumeString(40);
        byte[] body = data.consumeBoolean() ? data.consumeRemainingAsBytes()
                : data.consumeRemainingAsString().getBytes(StandardCharsets.UTF_8);

        Problems problems = new Problems();
        Filter f = FilterReader.read(raw, "when", problems);
        if (f == null) {
            assertThat(problems.list()).isNotEmpty().allSatisfy(m -> assertThat(m).isNotBlank().startsWith("when"));
            return;
        }
        assertThat(problems.list()).isEmpty();
        EventType type = EventType.json("$.type");
        boolean verdict = f.test(new HookFacts(name -> header, body, type));
        Filter again = FilterReader.read(FilterTest.yaml(f.text()), "when", problems);
        assertThat(problems.list()).as(f.text()).isEmpty();
        assertThat(again.text()).isEqualTo(f.text());
        assertThat(again.test(new HookFacts(name -> header, body, type))).as(f.text()).isEqualTo(verdict);
    }

    private static Object value(FuzzedDataProvider data, int depth) {
        return value(data, depth, 6, KEYS, WORDS);
    }

    /**
     * A config value of any YAML type, drawn from {@code data}: a word of {@code words}, a
     * string, a boolean, a number, null, or (above {@code maxDepth} levels, no more) a list
     * or a mapping with keys from {@code keys}. The transformation target draws its own too.
     */
    static Object value(FuzzedDataProvider data, int depth, int maxDepth, String[] keys, String[] words) {
        int kind = data.consumeInt(0, depth > maxDepth ? 5 : 7);
        return switch (kind) {
            case 0 -> data.pickValue(words);
            case 1 -> data.consumeString(30);
            case 2 -> data.consumeBoolean();
            case 3 -> data.consumeLong();
            case 4 -> data.consumeBoolean() ? null : data.consumeDouble();
            case 5 -> data.consumeInt(-3, 3);
            case 6 -> {
                List<Object> list = new ArrayList<>();
                int n = data.consumeInt(0, 4);
                for (int i = 0; i < n; i++) {
                    list.add(value(data, depth + 1, maxDepth, keys, words));
                }
                yield list;
            }
            default -> {
                Map<String, Object> map = new LinkedHashMap<>();
                int n = data.consumeInt(0, 3);
                for (int i = 0; i < n; i++) {
                    map.put(data.pickValue(keys), value(data, depth + 1, maxDepth, keys, words));
                }
                yield map;
            }
        };
    }
}
