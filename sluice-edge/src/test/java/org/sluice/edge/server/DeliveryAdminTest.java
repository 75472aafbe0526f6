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
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.edge.store.CommitResult;
import org.sluice.edge.store.DeliveryLedger;
import org.sluice.edge.store.DeliveryRow;
import org.sluice.edge.store.DeliveryState;
import org.sluice.edge.store.Hooks;

/**
 * The delivery routes of the admin API on a real server (real sockets, RocksDB in a temp
 * dir). No dispatcher runs yet: rows are committed and moved through the server's own
 * store, as the dispatcher will move them.
 */
class DeliveryAdminTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient CLIENT = HttpClient.newHttpClient();

    static final String CONFIG = """
            http: {listen: "127.0.0.1:0"}
            destinations:
              zeta: {type: http, url: "http://127.0.0.1:9/z"}
              app: {type: http, url: "http://127.0.0.1:9/a"}
            sources:
              gh: {tenant: acme, verify: {scheme: none}, deliver_to: [zeta, app]}
            """;

    @TempDir
    Path dir;

    record Answer(int status, String body) {
        JsonNode json() {
            try {
                return JSON.readTree(body);
            } catch (Exception e) {
                throw new AssertionError("not JSON: " + body, e);
            }
        }
    }

    private Answer call(TestEdge edge, String method, String path, String body, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + edge.server.adminAddress().getPort() + path))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .header("Authorization", "Bearer " + Files.readString(dir.resolve("admin.token")).strip());
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        HttpResponse<String> r = CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofString());
        return new Answer(r.statusCode(), r.body());
    }

    /**
     * Commits hooks through the server's store with rows to {@code destinations}, as ingest with deliver_to does,
     * but with every delivery held back a day (claimed at its commit by a claimant that sends nothing), so that
     * these tests look at pending rows no attempt touches: neither the commit's own start nor the dispatcher's
     * scan (due rows only) reaches them.
     */
    /** Claims every delivery at its commit for a day and sends nothing: rows stay pending, untouched by any attempt. */
    static final org.sluice.edge.store.CommitClaims HOLD_A_DAY = new org.sluice.edge.store.CommitClaims() {
        @Override
        public long claim(String destination, long nowMillis) {
            return nowMillis + java.time.Duration.ofDays(1).toMillis();
        }

        @Override
        public void committed(List<Claimed> claimed, int unclaimed, boolean written) {
        }
    };

    static List<String> commit(TestEdge edge, int n, String... destinations) {
        edge.backends().store().setCommitClaims(HOLD_A_DAY);
        try {
            return commitEach(edge, n, destinations);
        } finally {
            edge.backends().store().setCommitClaims(edge.backends().dispatcher().commitClaims());
        }
    }

    private static List<String> commitEach(TestEdge edge, int n, String... destinations) {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            // received now: a hook from the fixture's fixed past would be dead of max_age at the dispatcher's first look
            org.sluice.edge.store.PendingHook h = Hooks.hook("k-" + System.nanoTime());
            CommitResult r = edge.backends().store().commit(List.of(new org.sluice.edge.store.PendingHook(h.tenant(),
                    h.source(), h.dedupeKey(), System.currentTimeMillis(), h.headers(), h.body(),
                    List.of(destinations)))).get(0);
            assertThat(r.status()).isEqualTo(CommitResult.Status.ACCEPTED);
            ids.add(r.id());
        }
        return ids;
    }

    static DeliveryRow row(TestEdge edge, String hookId, String destination) {
        return edge.backends().store().deliveries().deliveries(hookId).stream()
                .filter(r -> r.destination().equals(destination)).findFirst().orElseThrow();
    }

    static void kill(TestEdge edge, String hookId, String destination) {
        DeliveryLedger ledger = edge.backends().store().deliveries();
        assertThat(ledger.markDead(row(edge, hookId, destination), "permanent_status", true, 410, null,
                System.currentTimeMillis())).isTrue();
    }

    private JsonNode destination(TestEdge edge, String name) throws Exception {
        for (JsonNode d : call(edge, "GET", "/v1/destinations", null).json().get("destinations")) {
            if (d.get("name").asText().equals(name)) {
                return d;
            }
        }
        throw new AssertionError("no destination " + name);
    }

    @Test
    void destinationsAreListedInConfigOrderWithTheirCounts() throws Exception {
        try (TestEdge edge = TestEdge.start(dir, CONFIG)) {
            List<String> ids = commit(edge, 3, "zeta", "app");
            kill(edge, ids.get(0), "app");
            Answer list = call(edge, "GET", "/v1/destinations", null);
            assertThat(list.status()).isEqualTo(200);
            JsonNode all = list.json().get("destinations");
            assertThat(all).hasSize(2);
            assertThat(all.get(0).get("name").asText()).isEqualTo("zeta");
            JsonNode app = all.get(1);
            assertThat(app.get("name").asText()).isEqualTo("app");
            assertThat(app.get("type").asText()).isEqualTo("http");
            assertThat(app.get("state").asText()).isEqualTo("ok");
            assertThat(app.get("in_flight").asInt()).isZero();
            assertThat(app.get("pending").asLong()).isEqualTo(2);
            assertThat(app.get("dead").asLong()).isEqualTo(1);
            assertThat(app.get("oldest_pending_age_ms").asLong()).isNotNegative();
            assertThat(app.get("delivered_total").asLong()).isZero();
            assertThat(app.get("failed_attempts_total").asLong()).isZero();
            assertThat(all.get(0).get("pending").asLong()).isEqualTo(3);
            assertThat(call(edge, "POST", "/v1/destinations", "{}").status()).isEqualTo(405);
        }
    }

    @Test
    void aPausedDestinationStaysPausedAfterARestartAndEveryChangeIsAudited() throws Exception {
        try (TestEdge edge = TestEdge.start(dir, CONFIG)) {
            Answer paused = call(edge, "POST", "/v1/destinations/app/pause", null, "X-Sluice-Actor", "oncall");
            assertThat(paused.status()).isEqualTo(200);
            assertThat(paused.json().get("name").asText()).isEqualTo("app");
            assertThat(paused.json().get("state").asText()).isEqualTo("paused");
            JsonNode record = call(edge, "GET", "/v1/audit?limit=1", null).json().get("audit").get(0);
            assertThat(record.get("actor").asText()).isEqualTo("oncall");
            assertThat(record.get("action").asText()).isEqualTo("pause");
            assertThat(record.get("tenant").isNull()).isTrue();
            assertThat(record.get("before").toString()).isEqualTo("{\"destination\":\"app\",\"paused\":false}");
            assertThat(record.get("after").toString()).isEqualTo("{\"destination\":\"app\",\"paused\":true}");
            assertThat(call(edge, "POST", "/v1/destinations/nope/pause", null).json().get("error").asText())
                    .isEqualTo("destination_not_found");
            assertThat(call(edge, "GET", "/v1/destinations/app/pause", null).status()).isEqualTo(405);
            assertThat(call(edge, "POST", "/v1/destinations/app/stop", null).status()).isEqualTo(404);
            assertThat(call(edge, "POST", "/v1/destinations/app/pause", null, "X-Sluice-Actor", "a".repeat(129)).status())
                    .isEqualTo(400);
        }
        try (TestEdge edge = TestEdge.start(dir, CONFIG)) {
            assertThat(destination(edge, "app").get("state").asText()).isEqualTo("paused");
            assertThat(destination(edge, "zeta").get("state").asText()).isEqualTo("ok");
            Answer resumed = call(edge, "POST", "/v1/destinations/app/resume", null);
            assertThat(resumed.status()).isEqualTo(200);
            assertThat(resumed.json().get("state").asText()).isEqualTo("ok");
            JsonNode record = call(edge, "GET", "/v1/audit?limit=1", null).json().get("audit").get(0);
            assertThat(record.get("actor").asText()).isEqualTo("admin");
            assertThat(record.get("action").asText()).isEqualTo("resume");
        }
        try (TestEdge edge = TestEdge.start(dir, CONFIG)) {
            assertThat(destination(edge, "app").get("state").asText()).isEqualTo("ok");
        }
    }

    @Test
    void aHookShowsItsDeliveries() throws Exception {
        try (TestEdge edge = TestEdge.start(dir, CONFIG)) {
            String id = commit(edge, 1, "zeta", "app").get(0);
            kill(edge, id, "app");
            String plain = commit(edge, 1).get(0);
            JsonNode deliveries = call(edge, "GET", "/v1/hooks/" + id, null).json().get("deliveries");
            assertThat(deliveries).hasSize(2);
            JsonNode app = deliveries.get(0).get("destination").asText().equals("app") ? deliveries.get(0) : deliveries.get(1);
            JsonNode zeta = app == deliveries.get(0) ? deliveries.get(1) : deliveries.get(0);
            assertThat(app.get("state").asText()).isEqualTo("dead");
            assertThat(app.get("attempts").asInt()).isEqualTo(1);
            assertThat(app.get("last_status").asInt()).isEqualTo(410);
            assertThat(app.get("dead_reason").asText()).isEqualTo("permanent_status");
            assertThat(app.get("next_attempt_at").isNull()).isTrue();
            assertThat(app.get("delivered_at").isNull()).isTrue();
            assertThat(zeta.get("state").asText()).isEqualTo("pending");
            assertThat(zeta.get("attempts").asInt()).isZero();
            assertThat(Instant.parse(zeta.get("next_attempt_at").asText())).isNotNull();
            assertThat(zeta.get("last_error").isNull()).isTrue();
            assertThat(call(edge, "GET", "/v1/hooks/" + plain, null).json().get("deliveries")).isEmpty();
        }
    }

    @Test
    void deadLettersPageLikeHooks() throws Exception {
        try (TestEdge edge = TestEdge.start(dir, CONFIG)) {
            List<String> ids = commit(edge, 5, "zeta", "app");
            for (String id : ids) {
                kill(edge, id, "app");
            }
            kill(edge, ids.get(2), "zeta");
            List<String> seen = new ArrayList<>();
            String after = null;
            do {
                Answer page = call(edge, "GET", "/v1/dead-letters?destination=app&limit=2" + (after == null ? "" : "&after=" + after), null);
                assertThat(page.status()).isEqualTo(200);
                for (JsonNode d : page.json().get("dead_letters")) {
                    assertThat(d.get("destination").asText()).isEqualTo("app");
                    assertThat(d.get("reason").asText()).isEqualTo("permanent_status");
                    assertThat(d.get("attempts").asInt()).isEqualTo(1);
                    assertThat(d.get("last_status").asInt()).isEqualTo(410);
                    assertThat(Instant.parse(d.get("dead_at").asText())).isNotNull();
                    seen.add(d.get("id").asText());
                }
                after = page.json().get("next").isNull() ? null : page.json().get("next").asText();
            } while (after != null);
            assertThat(seen).containsExactlyElementsOf(ids);
            assertThat(call(edge, "GET", "/v1/dead-letters", null).json().get("dead_letters")).hasSize(6);
            assertThat(call(edge, "GET", "/v1/dead-letters?destination=nope", null).status()).isEqualTo(404);
            Answer badLimit = call(edge, "GET", "/v1/dead-letters?limit=0", null);
            assertThat(badLimit.status()).isEqualTo(400);
            assertThat(badLimit.json().get("error").asText()).isEqualTo("invalid_limit");
            Answer badAfter = call(edge, "GET", "/v1/dead-letters?after=nope", null);
            assertThat(badAfter.status()).isEqualTo(400);
            assertThat(badAfter.json().get("error").asText()).isEqualTo("invalid_after");
        }
    }

    @Test
    void aRedeliveryStartsAFreshDeliveryWhateverTheStateWas() throws Exception {
        try (TestEdge edge = TestEdge.start(dir, CONFIG)) {
            String id = commit(edge, 1, "zeta", "app").get(0);
            kill(edge, id, "app");
            DeliveryLedger ledger = edge.backends().store().deliveries();
            assertThat(ledger.markDelivered(row(edge, id, "zeta"), 200, System.currentTimeMillis())).isTrue();
            // paused, so that no attempt can start between the redelivery and the reads of its row below
            assertThat(call(edge, "POST", "/v1/destinations/app/pause", null).status()).isEqualTo(200);

            Answer one = call(edge, "POST", "/v1/hooks/" + id + "/redeliver", "{\"destinations\":[\"app\"]}",
                    "X-Sluice-Actor", "alice");
            assertThat(one.status()).isEqualTo(202);
            assertThat(one.json().get("scheduled").asInt()).isEqualTo(1);
            assertThat(row(edge, id, "app").state()).isEqualTo(DeliveryState.PENDING);
            assertThat(row(edge, id, "app").attempts()).isZero();
            assertThat(row(edge, id, "zeta").state()).isEqualTo(DeliveryState.DELIVERED);
            JsonNode record = call(edge, "GET", "/v1/audit?limit=1", null).json().get("audit").get(0);
            assertThat(record.get("actor").asText()).isEqualTo("alice");
            assertThat(record.get("action").asText()).isEqualTo("redeliver");
            assertThat(record.get("after").toString()).isEqualTo("{\"hook\":\"" + id + "\",\"destinations\":[\"app\"]}");

            Answer all = call(edge, "POST", "/v1/hooks/" + id + "/redeliver", null);
            assertThat(all.status()).isEqualTo(202);
            assertThat(all.json().get("scheduled").asInt()).isEqualTo(2);
            assertThat(row(edge, id, "zeta").state()).isEqualTo(DeliveryState.PENDING);

            String missing = "01890000-0000-7000-8000-000000000000";
            assertThat(call(edge, "POST", "/v1/hooks/" + missing + "/redeliver", null).json().get("error").asText())
                    .isEqualTo("hook_not_found");
            Answer unknown = call(edge, "POST", "/v1/hooks/" + id + "/redeliver", "{\"destinations\":[\"nope\"]}");
            assertThat(unknown.status()).isEqualTo(404);
            assertThat(unknown.json().get("error").asText()).isEqualTo("destination_not_found");
            for (String bad : List.of("[]", "{\"destinations\":\"app\"}", "{\"destinations\":[]}", "{\"destinations\":[1]}",
                    "{\"destinations\":[\"app\",\"app\"]}", "{\"destinations\":[\"app\"],\"x\":1}", "{")) {
                Answer refused = call(edge, "POST", "/v1/hooks/" + id + "/redeliver", bad);
                assertThat(refused.status()).as(bad).isEqualTo(400);
                assertThat(refused.json().get("error").asText()).isEqualTo("invalid_redeliver");
                assertThat(refused.json().get("message").asText()).isNotBlank();
            }
            assertThat(call(edge, "GET", "/v1/hooks/" + id + "/redeliver", null).status()).isEqualTo(405);
        }
    }

    /**
     * Issue 46, point 12: a redelivery could name any configured destination, so one
     * tenant's hook could be sent to another tenant's endpoint. A destination the hook has
     * no delivery to (its source does not deliver there) now needs {@code "force":true},
     * and the audit record says which destinations were forced.
     */
    @Test
    void aRedeliveryToADestinationTheSourceDoesNotDeliverToNeedsForceAndIsAuditedAsForced() throws Exception {
        try (TestEdge edge = TestEdge.start(dir, CONFIG)) {
            String id = commit(edge, 1, "app").get(0);

            Answer refused = call(edge, "POST", "/v1/hooks/" + id + "/redeliver", "{\"destinations\":[\"app\",\"zeta\"]}");
            assertThat(refused.status()).isEqualTo(409);
            assertThat(refused.json().get("error").asText()).isEqualTo("force_required");
            assertThat(refused.json().get("destinations").toString()).isEqualTo("[\"zeta\"]");
            assertThat(edge.backends().store().deliveries().deliveries(id)).extracting(DeliveryRow::destination)
                    .containsExactly("app");

            Answer bad = call(edge, "POST", "/v1/hooks/" + id + "/redeliver", "{\"destinations\":[\"zeta\"],\"force\":1}");
            assertThat(bad.status()).isEqualTo(400);
            assertThat(bad.json().get("error").asText()).isEqualTo("invalid_redeliver");

            Answer forced = call(edge, "POST", "/v1/hooks/" + id + "/redeliver",
                    "{\"destinations\":[\"app\",\"zeta\"],\"force\":true}", "X-Sluice-Actor", "bob");
            assertThat(forced.status()).isEqualTo(202);
            assertThat(forced.json().get("scheduled").asInt()).isEqualTo(2);
            JsonNode record = call(edge, "GET", "/v1/audit?limit=1", null).json().get("audit").get(0);
            assertThat(record.get("actor").asText()).isEqualTo("bob");
            assertThat(record.get("after").toString())
                    .isEqualTo("{\"hook\":\"" + id + "\",\"destinations\":[\"app\",\"zeta\"],\"forced\":[\"zeta\"]}");

            // its own destination needs no force; an unknown hook is still 404, force or not
            assertThat(call(edge, "POST", "/v1/hooks/" + id + "/redeliver", "{\"destinations\":[\"app\"]}").status())
                    .isEqualTo(202);
            String missing = "01890000-0000-7000-8000-000000000000";
            assertThat(call(edge, "POST", "/v1/hooks/" + missing + "/redeliver", "{\"destinations\":[\"zeta\"]}")
                    .json().get("error").asText()).isEqualTo("hook_not_found");
        }
    }

    @Test
    void aReplayRedeliversTheDeadLettersOfARangeAndReportsProgress() throws Exception {
        try (TestEdge edge = TestEdge.start(dir, CONFIG)) {
            long from = System.currentTimeMillis() - 1;
            List<String> ids = commit(edge, 6, "zeta", "app");
            for (int i = 0; i < 6; i += 2) {
                kill(edge, ids.get(i), "app");
            }
            String to = Instant.ofEpochMilli(System.currentTimeMillis() + 60_000).toString();
            String body = "{\"from\":\"" + Instant.ofEpochMilli(from) + "\",\"to\":\"" + to + "\",\"dead_only\":true,\"rate\":100}";
            Answer started = call(edge, "POST", "/v1/destinations/app/replay", body, "X-Sluice-Actor", "bob");
            assertThat(started.status()).as(started.body()).isEqualTo(202);
            assertThat(started.json().get("scheduled").asInt()).isEqualTo(3);
            String replay = started.json().get("replay").asText();
            TestEdge.await(() -> {
                try {
                    return call(edge, "GET", "/v1/replays/" + replay, null).json().get("state").asText().equals("done");
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            });
            JsonNode done = call(edge, "GET", "/v1/replays/" + replay, null).json();
            assertThat(done.get("replay").asText()).isEqualTo(replay);
            assertThat(done.get("scheduled").asInt()).isEqualTo(3);
            assertThat(done.get("delivered").asInt()).isZero();
            assertThat(done.get("dead").asInt()).isZero();
            for (int i = 0; i < 6; i++) {
                assertThat(row(edge, ids.get(i), "app").state()).isEqualTo(DeliveryState.PENDING);
            }
            DeliveryLedger ledger = edge.backends().store().deliveries();
            assertThat(ledger.markDelivered(row(edge, ids.get(0), "app"), 200, System.currentTimeMillis())).isTrue();
            edge.clock.advance(java.time.Duration.ofSeconds(1)); // the figures are recounted at most once a second
            assertThat(call(edge, "GET", "/v1/replays/" + replay, null).json().get("delivered").asInt()).isEqualTo(1);

            JsonNode record = call(edge, "GET", "/v1/audit?limit=1", null).json().get("audit").get(0);
            assertThat(record.get("actor").asText()).isEqualTo("bob");
            assertThat(record.get("action").asText()).isEqualTo("replay");
            assertThat(record.get("after").get("replay").asText()).isEqualTo(replay);
            assertThat(record.get("after").get("scheduled").asInt()).isEqualTo(3);

            String f = "\"from\":\"2026-12-01T00:00:00Z\"";
            for (String bad : List.of("{}", "[]", "{" + f + "}", "{\"to\":\"2026-12-01T00:00:00Z\"}",
                    "{" + f + ",\"to\":\"2026-11-30T00:00:00Z\"}", "{" + f + ",\"to\":\"2026-12-01T00:00:00Z\"}",
                    "{" + f + ",\"to\":\"yesterday\"}", "{" + f + ",\"to\":\"2026-12-02T00:00:00\"}",
                    "{" + f + ",\"to\":\"2026-12-02T00:00:00Z\",\"rate\":0}",
                    "{" + f + ",\"to\":\"2026-12-02T00:00:00Z\",\"rate\":1000001}",
                    "{" + f + ",\"to\":\"2026-12-02T00:00:00Z\",\"rate\":1.5}",
                    "{" + f + ",\"to\":\"2026-12-02T00:00:00Z\",\"dead_only\":\"yes\"}",
                    "{" + f + ",\"to\":\"2026-12-02T00:00:00Z\",\"extra\":1}")) {
                Answer refused = call(edge, "POST", "/v1/destinations/app/replay", bad);
                assertThat(refused.status()).as(bad).isEqualTo(400);
                assertThat(refused.json().get("error").asText()).isEqualTo("invalid_replay");
                assertThat(refused.json().get("message").asText()).isNotBlank();
            }
            assertThat(call(edge, "POST", "/v1/destinations/nope/replay", body).json().get("error").asText())
                    .isEqualTo("destination_not_found");
            Answer unknown = call(edge, "GET", "/v1/replays/nope", null);
            assertThat(unknown.status()).isEqualTo(404);
            assertThat(unknown.json().get("error").asText()).isEqualTo("replay_not_found");
        }
    }

    /**
     * Issue 46, point 7: a poll of a replay walked its whole range again, a 1970 to 9999 range
     * was taken, and any number of replays (up to 100) could run to one destination. Now the
     * figures are counters recounted at most once a second of the server's clock, a range
     * wider than 31 days needs {@code "force": true} ({@code 409 force_required} otherwise,
     * the forced one audited), and at most two replays to one destination run at once.
     */
    @Test
    void replayPollsAreCountedAtMostOnceASecondAndWideRangesNeedForceAndReplaysPerDestinationAreBounded()
            throws Exception {
        try (TestEdge edge = TestEdge.start(dir, CONFIG)) {
            // paused: the dispatcher leaves the rows alone, so only the test changes their state
            assertThat(call(edge, "POST", "/v1/destinations/app/pause", null).status()).isEqualTo(200);
            assertThat(call(edge, "POST", "/v1/destinations/zeta/pause", null).status()).isEqualTo(200);
            long from = System.currentTimeMillis() - 1;
            List<String> ids = commit(edge, 40, "zeta", "app");
            for (String id : ids) {
                kill(edge, id, "app");
                kill(edge, id, "zeta");
            }
            String to = Instant.ofEpochMilli(System.currentTimeMillis() + 60_000).toString();
            // rate 1 on a clock that stands still: one redelivery, then each replay waits, running
            String slow = "{\"from\":\"" + Instant.ofEpochMilli(from) + "\",\"to\":\"" + to + "\",\"dead_only\":true,\"rate\":1}";
            Answer first = call(edge, "POST", "/v1/destinations/app/replay", slow);
            assertThat(first.status()).as(first.body()).isEqualTo(202);
            String replay = first.json().get("replay").asText();
            TestEdge.await(() -> scheduled(edge, replay) == 1);

            // the burst's one row is delivered; a poll in the same second answers the figures counted before
            DeliveryRow redelivered = edge.backends().store().deliveries().deliveries(ids.get(0)).stream()
                    .filter(r -> r.destination().equals("app")).findFirst().orElseThrow();
            assertThat(redelivered.state()).isEqualTo(DeliveryState.PENDING);
            assertThat(edge.backends().store().deliveries().markDelivered(redelivered, 200, System.currentTimeMillis()))
                    .isTrue();
            for (int i = 0; i < 5; i++) {
                assertThat(call(edge, "GET", "/v1/replays/" + replay, null).json().get("delivered").asInt())
                        .as("poll %d in the second of the first count", i).isZero();
            }

            Answer second = call(edge, "POST", "/v1/destinations/app/replay", slow);
            assertThat(second.status()).as(second.body()).isEqualTo(202);
            Answer third = call(edge, "POST", "/v1/destinations/app/replay", slow);
            assertThat(third.status()).as("a third replay to app while two run: " + third.body()).isEqualTo(429);
            assertThat(third.json().get("error").asText()).isEqualTo("too_many_replays");
            assertThat(call(edge, "POST", "/v1/destinations/zeta/replay", slow).status())
                    .as("another destination has its own two").isEqualTo(202);

            String wide = "{\"from\":\"1970-01-01T00:00:00Z\",\"to\":\"9999-12-31T00:00:00Z\",\"dead_only\":true";
            Answer refused = call(edge, "POST", "/v1/destinations/zeta/replay", wide + "}");
            assertThat(refused.status()).as(refused.body()).isEqualTo(409);
            assertThat(refused.json().get("error").asText()).isEqualTo("force_required");
            assertThat(refused.json().get("message").asText()).contains("force");
            assertThat(call(edge, "POST", "/v1/destinations/zeta/replay", wide + ",\"force\":\"yes\"}").status())
                    .isEqualTo(400);
            Answer forced = call(edge, "POST", "/v1/destinations/zeta/replay", wide + ",\"force\":true}",
                    "X-Sluice-Actor", "bob");
            assertThat(forced.status()).as(forced.body()).isEqualTo(202);
            JsonNode record = call(edge, "GET", "/v1/audit?limit=1", null).json().get("audit").get(0);
            assertThat(record.get("action").asText()).isEqualTo("replay");
            assertThat(record.get("after").get("force").asBoolean()).isTrue();

            edge.clock.advance(java.time.Duration.ofSeconds(1));
            assertThat(call(edge, "GET", "/v1/replays/" + replay, null).json().get("delivered").asInt())
                    .as("recounted a second later").isEqualTo(1);
        }
    }

    private int scheduled(TestEdge edge, String replay) {
        try {
            return call(edge, "GET", "/v1/replays/" + replay, null).json().get("scheduled").asInt();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    /** Hostile bodies: whatever the redelivery and replay routes are sent, they answer 202, 400 or 404, never 500. */
    @Test
    void hostileBodiesAreRefusedNeverAnError() throws Exception {
        try (TestEdge edge = TestEdge.start(dir, CONFIG)) {
            String id = commit(edge, 1, "app").get(0);
            java.util.Random random = new java.util.Random(20261203L);
            List<String> pieces = List.of("{", "}", "[", "]", ",", ":", "\"from\"", "\"to\"", "\"rate\"", "\"dead_only\"",
                    "\"destinations\"", "\"app\"", "\"2026-12-01T00:00:00Z\"", "\"+999999999-12-31T23:59:59Z\"",
                    "\"-0001-01-01T00:00:00+18:00\"", "1e400", "-1", "0", "9223372036854775808", "null", "true", "\"\\u0000\"",
                    "1.5", "\"x\"");
            for (int i = 0; i < 300; i++) {
                StringBuilder body = new StringBuilder();
                int n = 1 + random.nextInt(12);
                for (int j = 0; j < n; j++) {
                    body.append(pieces.get(random.nextInt(pieces.size())));
                }
                String text = random.nextInt(4) == 0 ? "{\"from\":" + body + ",\"to\":\"2100-01-01T00:00:00Z\"}" : body.toString();
                Answer replay = call(edge, "POST", "/v1/destinations/app/replay", text);
                assertThat(replay.status()).as(text).isIn(202, 400);
                Answer redeliver = call(edge, "POST", "/v1/hooks/" + id + "/redeliver", text);
                assertThat(redeliver.status()).as(text).isIn(202, 400, 404);
            }
            for (String from : List.of("+999999999-12-31T23:59:59Z", "9999-12-31T23:59:59Z", "1970-01-01T00:00:00Z")) {
                Answer r = call(edge, "POST", "/v1/destinations/app/replay",
                        "{\"from\":\"" + from + "\",\"to\":\"+999999999-12-31T23:59:59.999Z\"}");
                assertThat(r.status()).as(from + " -> " + r.body()).isIn(202, 400);
            }
        }
    }
}
