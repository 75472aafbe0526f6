package org.sluice.edge.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** {@code deliver_to} entries with a {@code when:} filter: what is read, and every refusal's message. */
class RouteConfigTest {

    private static final String DESTINATIONS = """
            destinations:
              app: {url: "http://127.0.0.1:9000/app"}
              billing: {url: "http://127.0.0.1:9000/billing"}
              audit: {url: "http://127.0.0.1:9000/audit"}
            """;

    /** A source {@code s} delivering to {@code app} and to {@code billing} when {@code when}. */
    private static String when(String when) {
        return DESTINATIONS + "sources:\n  s:\n    verify: {scheme: none}\n    deliver_to:\n      - app\n"
                + "      - {destination: billing, when: " + when + "}\n";
    }

    @Test
    void theIssuesExampleReadsIntoNamesAndFilters() {
        SluiceConfig c = ConfigLoader.parse(DESTINATIONS + """
                sources:
                  stripe-acme:
                    verify: {scheme: none}
                    deliver_to:
                      - app
                      - destination: billing
                        when: {json: "$.type", in: ["invoice.paid", "invoice.payment_failed"]}
                      - destination: audit
                        when: {any: [{header: X-GitHub-Event, equals: push}, {json: "$.data.object.livemode", equals: true}]}
                """);
        SourceConfig s = c.sources().get("stripe-acme");
        assertThat(s.deliverTo()).containsExactly("app", "billing", "audit");
        assertThat(s.filters()).containsOnlyKeys("billing", "audit");
        assertThat(s.filters().get("billing").text()).isEqualTo("{json: \"$.type\", in: [\"invoice.paid\", \"invoice.payment_failed\"]}");
        assertThat(s.filters().get("audit").text())
                .isEqualTo("{any: [{header: \"X-GitHub-Event\", equals: \"push\"}, {json: \"$.data.object.livemode\", equals: true}]}");
    }

    @Test
    void theEventTypeIsTheProvidersUnlessASourceSaysOtherwise() {
        SluiceConfig c = ConfigLoader.parse(DESTINATIONS + """
                sources:
                  gh: {verify: {scheme: github, secrets: [s3cret]}}
                  shop: {verify: {scheme: shopify, secrets: [s3cret]}}
                  stripe: {verify: {scheme: stripe, secrets: [whsec_abc]}}
                  std: {verify: {scheme: standard_webhooks, secrets: ["whsec_c2VjcmV0"]}}
                  open: {verify: {scheme: none}}
                  own: {verify: {scheme: none}, event_type: {header: X-Event-Kind}}
                  nested: {verify: {scheme: stripe, secrets: [whsec_abc]}, event_type: {json: "$.data.kind"}}
                  quiet: {verify: {scheme: github, secrets: [s3cret]}, event_type: none}
                  typed:
                    verify: {scheme: none}
                    event_type: {json: "$.type"}
                    deliver_to:
                      - {destination: billing, when: {event_type: {prefix: "invoice."}}}
                """);
        Map<String, String> got = new java.util.TreeMap<>();
        c.sources().forEach((id, s) -> got.put(id, s.eventType().text()));
        assertThat(got).isEqualTo(Map.of(
                "gh", "{header: \"X-GitHub-Event\"}",
                "shop", "{header: \"X-Shopify-Topic\"}",
                "stripe", "{json: \"$.type\"}",
                "std", "{json: \"$.type\"}",
                "open", "none",
                "own", "{header: \"X-Event-Kind\"}",
                "nested", "{json: \"$.data.kind\"}",
                "quiet", "none",
                "typed", "{json: \"$.type\"}"));
        assertThat(c.sources().get("typed").filters().get("billing").text()).isEqualTo("{event_type: {prefix: \"invoice.\"}}");
    }

    static Stream<Arguments> refusals() {
        String at = "sources.s.deliver_to[1].when";
        return Stream.of(
                bad("an unknown predicate", when("{json: \"$.type\", equal: push}"),
                        at + " has an unknown predicate \"equal\" (known: all, any, not, event_type, json, header, equals, in, prefix, exists, matches)"),
                bad("two predicates in one mapping", when("{json: \"$.type\", equals: push, prefix: p}"),
                        at + " must hold one predicate per mapping, got equals, prefix (combine them with all or any)"),
                bad("a combinator beside a predicate", when("{all: [{header: A, exists: true}], header: B, exists: true}"),
                        at + " must hold one predicate per mapping, got all, header, exists (combine them with all or any)"),
                bad("json and header in one leaf", when("{json: \"$.a\", header: A, exists: true}"),
                        at + " must read either json or header, not both"),
                bad("a predicate without an operand", when("{equals: push}"),
                        at + " must say what equals tests: json: \"$.path\" or header: Name"),
                bad("an operand without a predicate", when("{json: \"$.a\"}"),
                        at + " must hold a predicate beside json: one of equals, in, prefix, exists, matches"),
                bad("a JSON path without $", when("{json: \"type\", equals: push}"),
                        at + ".json must be a JSON path such as \"$.data.type\": \"type\" must start with $"),
                bad("a JSON path with an empty key", when("{json: \"$.a..b\", equals: push}"),
                        at + ".json must be a JSON path such as \"$.data.type\": \"$.a..b\" has an empty key at character 4"),
                bad("a JSON path with a bad index", when("{json: \"$.a[x]\", equals: push}"),
                        at + ".json must be a JSON path such as \"$.data.type\": \"$.a[x]\" has a bad index at character 4:"
                                + " an index is [0] to [999999999], a key ['name']"),
                bad("a JSON path too long", when("{json: \"$" + ".a".repeat(33) + "\", exists: true}"),
                        at + ".json must be a JSON path such as \"$.data.type\": \"$" + ".a".repeat(31) + "....\" has more than 32 steps"),
                bad("a bad header name", when("{header: \"X Event\", equals: push}"),
                        at + ".header must be an HTTP header name, got \"X Event\""),
                bad("a regex RE2 refuses (a backreference)", when("{json: \"$.a\", matches: \"(a)\\\\1\"}"),
                        at + ".matches must be a regular expression in RE2 syntax (no backreferences or lookaround),"
                                + " got \"(a)\\\\1\": invalid escape sequence"),
                bad("a regex that does not parse", when("{json: \"$.a\", matches: \"(a\"}"),
                        at + ".matches must be a regular expression in RE2 syntax (no backreferences or lookaround),"
                                + " got \"(a\": missing closing )"),
                bad("in not a list", when("{json: \"$.a\", in: push}"),
                        at + ".in must be a list of 1 to 1024 strings, numbers or booleans, got \"push\""),
                bad("in an empty list", when("{json: \"$.a\", in: []}"),
                        at + ".in must be a list of 1 to 1024 strings, numbers or booleans, got 0 values"),
                bad("in holding a mapping", when("{json: \"$.a\", in: [a, {b: c}]}"),
                        at + ".in[1] must be a string, a number or a boolean, got a mapping"),
                bad("equals a list", when("{json: \"$.a\", equals: [a]}"),
                        at + ".equals must be a string, a number or a boolean, got a list"),
                bad("exists not a boolean", when("{json: \"$.a\", exists: yes-please}"),
                        at + ".exists must be true or false, got \"yes-please\""),
                bad("an empty prefix", when("{header: A, prefix: \"\"}"),
                        at + ".prefix must be a non-empty string, got \"\""),
                bad("all not a list", when("{all: {header: A, exists: true}}"),
                        at + ".all must be a non-empty list of filters, got a mapping"),
                bad("a bad filter inside any", when("{any: [{header: A, exists: true}, {header: B}]}"),
                        at + ".any[1] must hold a predicate beside header: one of equals, in, prefix, exists, matches"),
                bad("not of a scalar", when("{not: push}"),
                        at + ".not must be a mapping with one of all, any, not, event_type, or json or header with one of"
                                + " equals, in, prefix, exists, matches, got \"push\""),
                bad("filters nested too deep", when("{not: ".repeat(17) + "{header: A, exists: true}" + "}".repeat(17)),
                        at + ".not".repeat(16) + " nests filters deeper than 16 levels"),
                bad("when not a mapping", when("push"),
                        at + " must be a mapping with one of all, any, not, event_type, or json or header with one of"
                                + " equals, in, prefix, exists, matches, got \"push\""),
                bad("event_type beside another key", when("{event_type: {equals: push}, header: A}"),
                        at + ".event_type must stand alone in its mapping, got event_type, header"
                                + " (write {event_type: {in: [...]}} and combine with all or any)"),
                bad("event_type without a predicate", when("{event_type: push}"),
                        at + ".event_type must be a mapping with one of equals, in, prefix, exists, matches"
                                + " (e.g. {in: [\"invoice.paid\"]}), got \"push\""),
                bad("event_type with a bad predicate", when("{event_type: {in: []}}"),
                        at + ".event_type.in must be a list of 1 to 1024 strings, numbers or booleans, got 0 values"),
                bad("a source's event_type neither header nor json",
                        DESTINATIONS + "sources:\n  s: {verify: {scheme: none}, event_type: {body: type}}\n",
                        "sources.s.event_type must be {header: Name}, {json: \"$.path\"} or none, got a mapping"),
                bad("a source's event_type with a bad path",
                        DESTINATIONS + "sources:\n  s: {verify: {scheme: none}, event_type: {json: type}}\n",
                        "sources.s.event_type.json must be a JSON path such as \"$.data.type\": \"type\" must start with $"),
                bad("a source's event_type with a bad header name",
                        DESTINATIONS + "sources:\n  s: {verify: {scheme: none}, event_type: {header: \"a b\"}}\n",
                        "sources.s.event_type.header must be an HTTP header name, got \"a b\""),
                bad("a destination that is not defined",
                        DESTINATIONS + "sources:\n  s: {verify: {scheme: none}, deliver_to: [{destination: bill, when: {header: A, exists: true}}]}\n",
                        "sources.s.deliver_to[0].destination names no configured destination: got \"bill\", configured: app, billing, audit"),
                bad("a destination twice, once filtered",
                        DESTINATIONS + "sources:\n  s: {verify: {scheme: none}, deliver_to: [app, {destination: app, when: {header: A, exists: true}}]}\n",
                        "sources.s.deliver_to[1].destination names destination \"app\" twice"),
                bad("the mapping form without when",
                        DESTINATIONS + "sources:\n  s: {verify: {scheme: none}, deliver_to: [{destination: app}]}\n",
                        "sources.s.deliver_to[0].when is required in the mapping form (write the plain name to deliver every hook)"),
                bad("the mapping form without destination",
                        DESTINATIONS + "sources:\n  s: {verify: {scheme: none}, deliver_to: [{when: {header: A, exists: true}}]}\n",
                        "sources.s.deliver_to[0].destination is required: the destination this entry delivers to"),
                bad("an unknown key in the mapping form",
                        DESTINATIONS + "sources:\n  s: {verify: {scheme: none}, deliver_to: [{destination: app, when: {header: A, exists: true}, if: x}]}\n",
                        "unknown key \"sources.s.deliver_to[0].if\" (known keys here: destination, when)"),
                bad("an entry that is neither a name nor a mapping",
                        DESTINATIONS + "sources:\n  s: {verify: {scheme: none}, deliver_to: [7]}\n",
                        "sources.s.deliver_to[0] must be a destination name or {destination: NAME, when: FILTER}, got 7"));
    }

    private static Arguments bad(String why, String yaml, String message) {
        return Arguments.of(why, yaml, message);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusals")
    void aBadFilterFailsTheBootNamingTheKeyAndTheReason(String why, String yaml, String message) {
        ConfigException e = catchThrowableOfType(ConfigException.class, () -> ConfigLoader.parse(yaml));
        assertThat(e).as(why).isNotNull();
        assertThat(e.errors()).as(why).containsExactly(message);
        assertThat(List.of(e.getMessage())).as(why).isNotEmpty();
    }
}
