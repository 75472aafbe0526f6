package org.sluice.edge.route;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** Laws of the combinators over any body and headers, and that no body makes a filter throw. */
class FilterPropertiesTest {

    /** Leaves over the paths and header the generated bodies use. */
    private static final List<String> LEAVES = List.of(
            "{json: \"$.type\", equals: a}", "{json: \"$.type\", in: [a, b, 1]}", "{json: \"$.type\", prefix: a}",
            "{json: \"$.n\", equals: 1}", "{json: \"$.x.y\", exists: true}", "{json: \"$.list[1]\", matches: \"^(a|b)+$\"}",
            "{header: X-Kind, equals: a}", "{header: X-Kind, exists: false}", "{header: X-Kind, matches: \"b\"}");

    @Provide
    Arbitrary<String> leaves() {
        return Arbitraries.of(LEAVES);
    }

    @Provide
    Arbitrary<String> bodies() {
        Arbitrary<String> value = Arbitraries.of("\"a\"", "\"ab\"", "\"b\"", "1", "1.0", "2", "true", "null", "{}", "[]",
                "{\"y\":0}", "[\"a\",\"b\"]");
        Arbitrary<String> json = Arbitraries.of("type", "n", "x", "list").list().ofMaxSize(4).uniqueElements()
                .flatMap(keys -> value.list().ofSize(keys.size()).map(values -> {
                    StringBuilder b = new StringBuilder("{");
                    for (int i = 0; i < keys.size(); i++) {
                        b.append(i == 0 ? "" : ",").append('"').append(keys.get(i)).append("\":").append(values.get(i));
                    }
                    return b.append('}').toString();
                }));
        return Arbitraries.oneOf(json, Arbitraries.strings().ofMaxLength(40), value);
    }

    @Provide
    Arbitrary<String> kinds() {
        return Arbitraries.of("a", "b", "ab", "", "none");
    }

    private static boolean test(String flow, String body, String kind) {
        Map<String, String> headers = kind.equals("none") ? Map.of() : Map.of("x-kind", kind);
        return FilterTest.filter(flow)
                .test(new HookFacts(name -> headers.get(name.toLowerCase(java.util.Locale.ROOT)), body.getBytes(StandardCharsets.UTF_8)));
    }

    @Property
    void notIsTheNegation(@ForAll("leaves") String p, @ForAll("bodies") String body, @ForAll("kinds") String kind) {
        assertThat(test("{not: " + p + "}", body, kind)).isEqualTo(!test(p, body, kind));
    }

    @Property
    void allAndAnyAreConjunctionAndDisjunction(@ForAll("leaves") String p, @ForAll("leaves") String q,
                                               @ForAll("bodies") String body, @ForAll("kinds") String kind) {
        boolean a = test(p, body, kind);
        boolean b = test(q, body, kind);
        assertThat(test("{all: [" + p + ", " + q + "]}", body, kind)).isEqualTo(a && b);
        assertThat(test("{any: [" + p + ", " + q + "]}", body, kind)).isEqualTo(a || b);
        // De Morgan, through the reader
        assertThat(test("{not: {any: [" + p + ", " + q + "]}}", body, kind))
                .isEqualTo(test("{all: [{not: " + p + "}, {not: " + q + "}]}", body, kind));
    }

    @Property
    void anyBytesAreEvaluatedWithoutAnError(@ForAll("leaves") String p, @ForAll byte[] body) {
        FilterTest.filter(p).test(new HookFacts(name -> null, body)); // no exception: a hostile body is only "not JSON"
    }
}
