package org.sluice.edge.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.testkit.HookReceiver;

/**
 * {@code deliver_to} filters on a real server with a real receiver: each hook arrives at
 * exactly the destinations whose filter it passes, a hook that passes none is stored with no
 * deliveries, and {@code GET /v1/hooks/{id}} lists each delivery with the filter that chose it and
 * the hook's event type.
 */
class FilteredDeliveryTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    void hooksArriveOnlyWhereTheirFiltersMatch() throws Exception {
        try (HookReceiver receiver = HookReceiver.start();
             TestEdge edge = TestEdge.start(dir, """
                     http: {listen: "127.0.0.1:0"}
                     destinations:
                       app: {url: "%s"}
                       billing: {url: "%s"}
                       audit: {url: "%s"}
                     sources:
                       stripe-acme:
                         verify: {scheme: none}
                         deliver_to:
                           - app
                           - destination: billing
                             when: {json: "$.type", in: ["invoice.paid", "invoice.payment_failed"]}
                           - destination: audit
                             when: {any: [{header: X-GitHub-Event, equals: push}, {json: "$.data.object.livemode", equals: true}]}
                       picky:
                         verify: {scheme: none}
                         deliver_to:
                           - {destination: billing, when: {json: "$.type", prefix: "invoice."}}
                       typed:
                         verify: {scheme: none}
                         event_type: {header: X-Event-Kind}
                         deliver_to:
                           - app
                           - {destination: audit, when: {event_type: {in: [push, release]}}}
                     """.formatted(receiver.uri("/app"), receiver.uri("/billing"), receiver.uri("/audit")))) {
            // body, headers -> where it must arrive
            Map<String, Set<String>> expected = new LinkedHashMap<>();
            expected.put(post(edge, "stripe-acme", "{\"type\":\"invoice.paid\",\"data\":{\"object\":{\"livemode\":false}}}", Map.of()),
                    Set.of("app", "billing"));
            expected.put(post(edge, "stripe-acme", "{\"type\":\"charge.succeeded\",\"data\":{\"object\":{\"livemode\":true}}}", Map.of()),
                    Set.of("app", "audit"));
            expected.put(post(edge, "stripe-acme", "ref=refs/heads/main", Map.of("x-github-event", "push")), // not JSON
                    Set.of("app", "audit"));
            expected.put(post(edge, "stripe-acme", "{\"type\":\"invoice.payment_failed\",\"data\":{\"object\":{\"livemode\":true}}}",
                    Map.of()), Set.of("app", "billing", "audit"));
            expected.put(post(edge, "stripe-acme", "{\"type\":\"customer.created\"}", Map.of()), Set.of("app"));
            expected.put(post(edge, "picky", "{\"type\":\"invoice.paid\"}", Map.of()), Set.of("billing"));
            String matchesNothing = post(edge, "picky", "{\"type\":\"charge.succeeded\"}", Map.of());
            expected.put(matchesNothing, Set.of());
            String release = post(edge, "typed", "{}", Map.of("x-event-kind", "release"));
            expected.put(release, Set.of("app", "audit"));
            String untyped = post(edge, "typed", "{\"type\":\"push\"}", Map.of());
            expected.put(untyped, Set.of("app"));

            int total = expected.values().stream().mapToInt(Set::size).sum();
            List<HookReceiver.Received> got = receiver.awaitRequests(total, Duration.ofSeconds(30));
            Map<String, Set<String>> arrived = new HashMap<>();
            for (HookReceiver.Received r : got) {
                arrived.computeIfAbsent(r.header("webhook-id"), id -> new HashSet<>()).add(r.path().substring(1));
            }
            expected.forEach((id, where) -> assertThat(arrived.getOrDefault(id, Set.of())).as("where hook %s arrived", id)
                    .isEqualTo(where));

            // the rows are the filter's verdict: a destination a hook did not match has no row, so nothing is ever sent there
            String token = Files.readString(dir.resolve("admin.token")).strip();
            for (Map.Entry<String, Set<String>> e : expected.entrySet()) {
                JsonNode deliveries = get(edge, token, "/v1/hooks/" + e.getKey()).get("deliveries");
                Map<String, JsonNode> byDestination = new HashMap<>();
                deliveries.forEach(d -> byDestination.put(d.get("destination").asText(), d));
                assertThat(byDestination.keySet()).as("deliveries of %s", e.getKey()).isEqualTo(e.getValue());
                if (byDestination.containsKey("app")) {
                    assertThat(byDestination.get("app").get("filter").isNull()).isTrue();
                }
                if (byDestination.containsKey("audit") && !e.getKey().equals(release)) {
                    assertThat(byDestination.get("audit").get("filter").asText()).isEqualTo(
                            "{any: [{header: \"X-GitHub-Event\", equals: \"push\"}, {json: \"$.data.object.livemode\", equals: true}]}");
                }
            }
            JsonNode billing = get(edge, token, "/v1/hooks/" + expected.keySet().iterator().next()).get("deliveries");
            billing.forEach(d -> {
                if (d.get("destination").asText().equals("billing")) {
                    assertThat(d.get("filter").asText())
                            .isEqualTo("{json: \"$.type\", in: [\"invoice.paid\", \"invoice.payment_failed\"]}");
                }
            });
            // each delivery shows the hook's event type as its source derives it
            get(edge, token, "/v1/hooks/" + release).get("deliveries").forEach(d -> {
                assertThat(d.get("event_type").asText()).isEqualTo("release");
                if (d.get("destination").asText().equals("audit")) {
                    assertThat(d.get("filter").asText()).isEqualTo("{event_type: {in: [\"push\", \"release\"]}}");
                }
            });
            get(edge, token, "/v1/hooks/" + untyped).get("deliveries")
                    .forEach(d -> assertThat(d.get("event_type").isNull()).as("a hook without the header").isTrue());
            get(edge, token, "/v1/hooks/" + expected.keySet().iterator().next()).get("deliveries")
                    .forEach(d -> assertThat(d.get("event_type").isNull()).as("a source of scheme none names no type").isTrue());
            JsonNode stored = get(edge, token, "/v1/hooks/" + matchesNothing);
            assertThat(stored.get("source").asText()).isEqualTo("picky");
            assertThat(stored.get("deliveries")).isEmpty();
        }
    }

    /** POSTs a hook, asserts it was accepted (202) and returns its id. */
    private static String post(TestEdge edge, String source, String body, Map<String, String> headers) throws Exception {
        Http.Response r = edge.post("/hooks/" + source, headers, body);
        assertThat(r.status()).as(r.body()).isEqualTo(202);
        return JSON.readTree(r.body()).get("id").asText();
    }

    private static JsonNode get(TestEdge edge, String token, String path) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + edge.server.adminAddress().getPort() + path))
                .header("Authorization", "Bearer " + token).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return JSON.readTree(r.body());
    }
}
