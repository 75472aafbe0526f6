package org.sluice.edge.route;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.sluice.edge.settings.Problems;

/** A hook's event type from a header or a JSON path, the provider defaults, and {@code event_type} filters. */
class EventTypeTest {

    private static HookFacts hook(EventType type, String body, String... headers) {
        Map<String, String> h = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        for (int i = 0; i < headers.length; i += 2) {
            h.put(headers[i], headers[i + 1]);
        }
        return new HookFacts(h::get, body.getBytes(StandardCharsets.UTF_8), type);
    }

    @Test
    void aHeaderNamesTheTypeWhateverItsCase() {
        EventType gh = EventType.defaultFor("github");
        assertThat(gh.of(hook(gh, "{}", "x-github-event", "push"))).isEqualTo("push");
        assertThat(gh.of(hook(gh, "{}"))).isNull();
        assertThat(gh.headerName()).contains("X-GitHub-Event");
    }

    @Test
    void aJsonPathNamesTheTypeWhenItHoldsAScalar() {
        EventType t = EventType.json("$.data.kind");
        assertThat(t.of(hook(t, "{\"data\":{\"kind\":\"invoice.paid\"}}"))).isEqualTo("invoice.paid");
        assertThat(t.of(hook(t, "{\"data\":{\"kind\":7}}"))).isEqualTo("7");
        assertThat(t.of(hook(t, "{\"data\":{\"kind\":true}}"))).isEqualTo("true");
        assertThat(t.of(hook(t, "{\"data\":{\"kind\":null}}"))).isNull();
        assertThat(t.of(hook(t, "{\"data\":{\"kind\":{\"a\":1}}}"))).isNull();
        assertThat(t.of(hook(t, "{\"data\":{\"kind\":[\"a\"]}}"))).isNull();
        assertThat(t.of(hook(t, "{\"data\":{}}"))).isNull();
        assertThat(t.of(hook(t, "kind=invoice.paid"))).as("a body that is not JSON").isNull();
        assertThat(t.of(hook(t, ""))).isNull();
        assertThat(t.headerName()).isEmpty();
    }

    @Test
    void anOverlongValueIsNoEventType() {
        EventType t = EventType.json("$.type");
        String longest = "x".repeat(EventType.MAX_LENGTH);
        assertThat(t.of(hook(t, "{\"type\":\"" + longest + "\"}"))).isEqualTo(longest);
        assertThat(t.of(hook(t, "{\"type\":\"" + longest + "x\"}"))).isNull();
    }

    @Test
    void providersNameTheirOwn() {
        assertThat(EventType.defaultFor("github").text()).isEqualTo("{header: \"X-GitHub-Event\"}");
        assertThat(EventType.defaultFor("shopify").text()).isEqualTo("{header: \"X-Shopify-Topic\"}");
        assertThat(EventType.defaultFor("stripe").text()).isEqualTo("{json: \"$.type\"}");
        assertThat(EventType.defaultFor("standard_webhooks").text()).isEqualTo("{json: \"$.type\"}");
        for (String other : List.of("slack", "hmac", "none")) {
            assertThat(EventType.defaultFor(other).isNone()).as(other).isTrue();
        }
        EventType none = EventType.NONE;
        assertThat(none.of(hook(none, "{\"type\":\"a\"}", "X-GitHub-Event", "push"))).isNull();
    }

    @Test
    void aReadEventTypeWritesBackAsWritten() {
        for (String flow : List.of("{header: \"X-Event\"}", "{json: \"$.data['a.b'][0]\"}")) {
            Problems problems = new Problems();
            EventType t = EventType.read(FilterTest.yaml(flow), "sources.s.event_type", problems);
            assertThat(problems.list()).as(flow).isEmpty();
            assertThat(t.text()).isEqualTo(flow);
        }
        assertThat(EventType.read("none", "p", new Problems())).isSameAs(EventType.NONE);
    }

    @Test
    void anEventTypeFilterTestsTheSourcesType() {
        Filter invoices = FilterTest.filter("{event_type: {prefix: \"invoice.\"}}");
        Filter exists = FilterTest.filter("{event_type: {exists: true}}");
        EventType stripe = EventType.defaultFor("stripe");
        assertThat(invoices.test(hook(stripe, "{\"type\":\"invoice.paid\"}"))).isTrue();
        assertThat(invoices.test(hook(stripe, "{\"type\":\"charge.succeeded\"}"))).isFalse();
        assertThat(invoices.test(hook(stripe, "not json"))).isFalse();
        assertThat(exists.test(hook(stripe, "not json"))).isFalse();
        assertThat(FilterTest.filter("{not: {event_type: {exists: true}}}").test(hook(stripe, "{}"))).isTrue();
        EventType gh = EventType.defaultFor("github");
        assertThat(FilterTest.filter("{event_type: {in: [push, 7]}}").test(hook(gh, "", "X-GitHub-Event", "7"))).isTrue();
        assertThat(invoices.text()).isEqualTo("{event_type: {prefix: \"invoice.\"}}");
    }

    @Test
    void routesHandTheSourcesEventTypeToItsFilters() {
        Routes routes = Routes.of(List.of("app", "billing"),
                Map.of("billing", FilterTest.filter("{event_type: {equals: \"invoice.paid\"}}")), EventType.json("$.kind"));
        assertThat(routes.select(name -> null, "{\"kind\":\"invoice.paid\"}".getBytes(StandardCharsets.UTF_8)))
                .containsExactly("app", "billing");
        assertThat(routes.select(name -> null, "{\"type\":\"invoice.paid\"}".getBytes(StandardCharsets.UTF_8)))
                .containsExactly("app");
    }
}
