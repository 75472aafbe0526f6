package org.sluice.edge.route;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;
import org.sluice.edge.settings.Problems;

/**
 * Transformations: each part reshaped, placeholder values kept inside their URL part, and the
 * outcomes of hostile input: a body that is not JSON, a path that finds nothing, a header
 * value that would split the request, a template that multiplies a large body (the output
 * bound holds), and a slow run (the time limit holds, on a clock the test moves).
 */
class TransformTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final LongSupplier FROZEN = () -> 0L;

    static Transform transform(String flow) {
        Problems problems = new Problems();
        Transform t = TransformReader.read(FilterTest.yaml(flow), "destinations.d.transform", problems);
        assertThat(problems.list()).as(flow).isEmpty();
        return t;
    }

    static List<String> refusals(String flow) {
        Problems problems = new Problems();
        Transform t = TransformReader.read(FilterTest.yaml(flow), "destinations.d.transform", problems);
        assertThat(t).as(flow).isNull();
        return problems.list();
    }

    private static Transform.Outcome apply(Transform t, String body, LongSupplier nanoTime) {
        return t.apply(new Transform.Input("hook-1", "acme", "stripe", body.getBytes(StandardCharsets.UTF_8)), nanoTime);
    }

    private static Transform.Request shaped(Transform t, String body) {
        Transform.Outcome o = apply(t, body, FROZEN);
        assertThat(o).isInstanceOf(Transform.Outcome.Shaped.class);
        return ((Transform.Outcome.Shaped) o).request();
    }

    private static String failed(Transform t, String body, LongSupplier nanoTime) {
        Transform.Outcome o = apply(t, body, nanoTime);
        assertThat(o).isInstanceOf(Transform.Outcome.Failed.class);
        return ((Transform.Outcome.Failed) o).reason();
    }

    @Test
    void everyPartIsReshapedFromTheHook() throws Exception {
        Transform t = transform("""
                {method: put,
                 path: "/tenants/{tenant}/{source}/events/{$.type}",
                 query: {id: "{$.data.id}", hook: "{hook_id}"},
                 headers: {X-Event: "{$.type}", X-Count: "n={$.data.count}"},
                 body: {kind: "{$.type}", object: "{$.data}", note: "{{literal}} {$.data.count} from {source}",
                        fixed: [1, true, null, "x"]}}
                """);
        Transform.Request r = shaped(t, "{\"type\":\"invoice.paid\",\"data\":{\"id\":\"in_1\",\"count\":3}}");
        assertThat(r.method()).isEqualTo("PUT");
        assertThat(r.path()).isEqualTo("/tenants/acme/stripe/events/invoice.paid");
        assertThat(r.query()).isEqualTo("id=in_1&hook=hook-1");
        assertThat(r.headers()).containsExactly(Map.entry("x-event", "invoice.paid"), Map.entry("x-count", "n=3"));
        assertThat(JSON.readTree(r.body())).isEqualTo(JSON.readTree("""
                {"kind":"invoice.paid","object":{"id":"in_1","count":3},"note":"{literal} 3 from stripe",
                 "fixed":[1,true,null,"x"]}"""));
        assertThat(t.shapesBody()).isTrue();
    }

    @Test
    void partsLeftOutAreLeftAsTheyWere() {
        Transform.Request r = shaped(transform("{headers: {X-Event: \"{$.type}\"}}"), "{\"type\":\"a\"}");
        assertThat(r.method()).isNull();
        assertThat(r.path()).isNull();
        assertThat(r.query()).isNull();
        assertThat(r.body()).isNull();
    }

    @Test
    void aValueFromTheBodyStaysInsideItsSegmentOrQueryValue() {
        Transform t = transform("{path: \"/e/{$.type}\", query: {\"a b\": \"{$.type}\"}}");
        Transform.Request r = shaped(t, "{\"type\":\"../admin?x=1&y=2#f é\"}");
        assertThat(r.path()).isEqualTo("/e/..%2Fadmin%3Fx%3D1%26y%3D2%23f%20%C3%A9");
        assertThat(r.query()).isEqualTo("a%20b=..%2Fadmin%3Fx%3D1%26y%3D2%23f%20%C3%A9");
    }

    @Test
    void aBodyThatIsNotJsonOrAPathThatFindsNothingFails() {
        Transform t = transform("{path: \"/e/{$.type}\"}");
        assertThat(failed(t, "type=push", FROZEN)).isEqualTo("reads the body, which is not JSON (or nests deeper than 64)");
        assertThat(failed(t, "{\"kind\":1}", FROZEN)).isEqualTo("placeholder {$.type} finds no value in the body");
        String deep = "[".repeat(200) + "]".repeat(200);
        assertThat(failed(transform("{body: \"{$}\"}"), deep, FROZEN)).startsWith("reads the body, which is not JSON");
        // a transformation that reads nothing of the body works on any body
        assertThat(shaped(transform("{path: \"/{source}\"}"), "not json").path()).isEqualTo("/stripe");
    }

    @Test
    void aHeaderValueThatWouldSplitTheRequestFails() {
        Transform t = transform("{headers: {X-Event: \"{$.type}\"}}");
        assertThat(failed(t, "{\"type\":\"a\\r\\nX-Injected: 1\"}", FROZEN))
                .isEqualTo("header x-event would hold the control character U+000D");
    }

    @Test
    void aTemplateThatMultipliesALargeBodyStopsAtTheOutputBound() {
        StringBuilder many = new StringBuilder("{max_output_bytes: 100000, body: [");
        for (int i = 0; i < 1000; i++) {
            many.append(i == 0 ? "" : ", ").append("\"{$}\"");
        }
        Transform t = transform(many.append("]}").toString());
        String big = "{\"pad\":\"" + "x".repeat(10_000) + "\"}"; // 1000 copies would be 10 MB
        assertThat(failed(t, big, FROZEN)).isEqualTo("made more than its output bound of 100000 bytes");
        // the same through text: a header built from many copies
        Transform headers = transform("{max_output_bytes: 50000, headers: {X-Big: \"" + "{$.pad}".repeat(100) + "\"}}");
        assertThat(failed(headers, big, FROZEN)).isEqualTo("made more than its output bound of 50000 bytes");
        assertThat(shaped(transform("{max_output_bytes: 100000, body: [\"{$}\"]}"), big).body()).hasSize(big.length() + 2);
    }

    @Test
    void aRunPastItsTimeLimitFails() {
        AtomicLong now = new AtomicLong();
        LongSupplier slow = () -> now.addAndGet(3_000_000L); // every look at the clock finds 3 ms gone
        Transform t = transform("{time_limit_ms: 50, body: {a: \"{$.a}\", b: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,"
                + " 13, 14, 15, 16, 17, 18, 19, 20]}}");
        assertThat(failed(t, "{\"a\":1}", slow)).isEqualTo("took longer than its time limit of 50 ms");
        assertThat(shaped(t, "{\"a\":1}").body()).isNotEmpty(); // on a clock that stands still it finishes
    }

    @Test
    void badTransformsAreRefusedWithTheirKeyPaths() {
        String at = "destinations.d.transform";
        assertThat(refusals("{method: TRACE}")).containsExactly(at + ".method must be one of POST, PUT, PATCH, DELETE, GET, got \"TRACE\"");
        assertThat(refusals("{path: \"e/{$.type}\"}")).containsExactly(at + ".path must start with /, got \"e/{$.type}\"");
        assertThat(refusals("{path: \"/e?x={$.type}\"}")).containsExactly(at + ".path must hold only URL path characters"
                + " outside its placeholders (no ?, #, spaces or control characters: set the query with query), got \"/e?x={$.type}\"");
        assertThat(refusals("{path: \"/e/{type}\"}")).containsExactly(at + ".path must be a template such as \"/events/{$.type}\":"
                + " \"/e/{type}\" has an unknown placeholder {type} (known: {tenant}, {source}, {hook_id}, or a JSON path such as {$.type})");
        assertThat(refusals("{path: \"/e/{$.a..b}\"}")).containsExactly(at + ".path must be a template such as \"/events/{$.type}\":"
                + " \"/e/{$.a..b}\" has a placeholder {$.a..b} whose path has an empty key at character 4");
        assertThat(refusals("{headers: {X-A: \"{$.a\"}}")).containsExactly(at + ".headers.X-A must be a template such as"
                + " \"/events/{$.type}\": \"{$.a\" has an unclosed { at character 1");
        assertThat(refusals("{headers: {\"X A\": a}}")).containsExactly(at + ".headers.X A names no HTTP header: a header"
                + " name is a token (letters, digits and !#$%&'*+-.^_`|~)");
        assertThat(refusals("{body: {a: \"}\"}}")).containsExactly(at + ".body.a must be a template such as \"/events/{$.type}\":"
                + " \"}\" has a lone } at character 1 (write }} for a brace)");
        assertThat(refusals("{time_limit_ms: 0}")).containsExactly(at + ".time_limit_ms must be an integer between 1 and 10000, got 0");
        assertThat(refusals("{max_output_bytes: 0}")).containsExactly(at + ".max_output_bytes must be an integer between 1 and 67108864, got 0");
        assertThat(refusals("{script: \"while(true){}\"}")).containsExactly("unknown key \"" + at + ".script\" (known keys here:"
                + " method, path, query, headers, body, time_limit_ms, max_output_bytes)");
    }
}
