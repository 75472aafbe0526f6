package org.sluice.edge.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.testkit.HookReceiver;

/**
 * A destination that fails without a single success for its {@code disable_after_seconds}, on
 * a real server with a real receiver and a manual wall clock: it is disabled (shown with the
 * time and the last error), nothing more is sent to it while its hooks stay pending, enabling
 * it through the admin API (audited) sends its backlog, and the disabled state survives a
 * restart.
 *
 * <p>"Nothing is sent" is proved without sleeping: a second destination, {@code canary}, fails
 * its first attempt of a hook and is retried one second later; once the clock has passed that
 * and its retry has arrived, a pass has run with every row of {@code app} due, and the pass
 * that picked the canary's retry had already picked (or held) {@code app}'s.
 */
class DisabledDestinationTest {

    private static final HttpClient CLIENT = HttpClient.newHttpClient();
    private static final long HOUR = 3_600_000;

    @TempDir
    Path dir;

    private final AtomicLong now = new AtomicLong(1_900_000_000_000L);

    static String config(HookReceiver receiver) {
        return """
                http: {listen: "127.0.0.1:0"}
                destinations:
                  app:
                    url: "%s"
                    retry: {initial_ms: 1000, max_ms: 1000, max_attempts: 1000}
                    breaker: {failures: 1000, disable_after_seconds: 3600}
                  canary:
                    url: "%s"
                    retry: {initial_ms: 1000, max_ms: 1000, max_attempts: 1000}
                  ops:
                    url: "%s"
                    signing: {scheme: standard_webhooks, secret: "%s"}
                sources:
                  gh: {tenant: acme, verify: {scheme: none}, deliver_to: [app, canary]}
                events: {deliver_to: [ops]}
                """.formatted(receiver.uri("/app"), receiver.uri("/canary"), receiver.uri("/ops"), OperationalEventsTest.SECRET);
    }

    private TestEdge start(HookReceiver receiver) {
        return TestEdge.startWith(dir, config(receiver), b -> b.epochMillis(now::get));
    }

    /** A receiver whose {@code /app} answers 503 while {@code appDown}, and whose canary fails the first attempt of each hook. */
    static HookReceiver receiver(AtomicBoolean appDown, AtomicInteger canaryFailures) {
        return HookReceiver.start()
                .answerWhen(r -> r.path().equals("/app") && appDown.get(), HookReceiver.Answer.status(503))
                .answerWhen(r -> r.path().equals("/canary") && canaryFailures.getAndDecrement() > 0,
                        HookReceiver.Answer.status(503))
                .defaultAnswer(HookReceiver.Answer.status(200));
    }

    static long count(HookReceiver receiver, String path) {
        return receiver.received().stream().filter(r -> r.path().equals(path)).count();
    }

    @Test
    void aDestinationFailingPastDisableAfterIsDisabledSendsNothingAndEnablingSendsItsBacklog() throws Exception {
        AtomicBoolean appDown = new AtomicBoolean(true);
        AtomicInteger canaryFailures = new AtomicInteger();
        try (HookReceiver receiver = receiver(appDown, canaryFailures); TestEdge edge = start(receiver)) {
            assertThat(edge.post("/hooks/gh", Map.of(), "{\"n\":1}").status()).isEqualTo(202);
            awaitFailures(edge, 1);

            advance(edge, HOUR / 2); // a failure half an hour into the run: not yet
            awaitFailures(edge, 2);
            assertThat(destination(edge, "app").get("state").asText()).isNotEqualTo("disabled");

            advance(edge, HOUR / 2); // a failure an hour into the run: disabled
            awaitFailures(edge, 3);
            TestEdge.await(() -> destination(edge, "app").get("state").asText().equals("disabled"));
            JsonNode app = destination(edge, "app");
            assertThat(java.time.Instant.parse(app.get("disabled").get("at").asText()).toEpochMilli()).isEqualTo(now.get());
            assertThat(app.get("disabled").get("last_error").asText()).isEqualTo("HTTP 503");
            assertThat(app.get("pending").asLong()).isEqualTo(1);
            TestEdge.await(() -> count(receiver, "/ops") == 1);
            JsonNode disabledEvent = OperationalEventsTest.event(receiver, 0, now.get());
            assertThat(disabledEvent.get("type").asText()).isEqualTo("destination.disabled");
            assertThat(disabledEvent.get("data").get("destination").asText()).isEqualTo("app");
            assertThat(disabledEvent.get("data").get("last_error").asText()).isEqualTo("HTTP 503");
            assertThat(disabledEvent.get("data").get("disabled_at").asText())
                    .isEqualTo(app.get("disabled").get("at").asText().replace(".000Z", "Z"));

            // a hook committed while disabled stays pending; a pass with everything due sends nothing to app
            appDown.set(false);
            assertNothingSentTo(edge, receiver, canaryFailures, 3);
            assertThat(destination(edge, "app").get("pending").asLong()).isEqualTo(2);

            DeliveryAdminTest.Answer enabled = admin(edge, "POST", "/v1/destinations/app/enable", "ops-jane");
            assertThat(enabled.status()).isEqualTo(200);
            assertThat(enabled.json().get("disabled").isNull()).isTrue();
            assertThat(enabled.json().get("state").asText()).isNotEqualTo("disabled");
            TestEdge.await(() -> count(receiver, "/app") == 5);
            TestEdge.await(() -> destination(edge, "app").get("pending").asLong() == 0);
            TestEdge.await(() -> count(receiver, "/ops") == 2);
            JsonNode recovered = OperationalEventsTest.event(receiver, 1, now.get());
            assertThat(recovered.get("type").asText()).isEqualTo("destination.recovered");
            assertThat(recovered.get("data").get("destination").asText()).isEqualTo("app");

            JsonNode audit = admin(edge, "GET", "/v1/audit?limit=1", null).json().get("audit").get(0);
            assertThat(audit.get("action").asText()).isEqualTo("enable");
            assertThat(audit.get("actor").asText()).isEqualTo("ops-jane");
            assertThat(audit.get("before").get("disabled").get("last_error").asText()).isEqualTo("HTTP 503");
            assertThat(audit.get("after").get("disabled").isNull()).isTrue();
        }
    }

    @Test
    void aDisabledDestinationStaysDisabledAcrossARestart() throws Exception {
        AtomicBoolean appDown = new AtomicBoolean(true);
        AtomicInteger canaryFailures = new AtomicInteger();
        String disabledAt;
        try (HookReceiver receiver = receiver(appDown, canaryFailures)) {
            try (TestEdge edge = start(receiver)) {
                assertThat(edge.post("/hooks/gh", Map.of(), "{\"n\":1}").status()).isEqualTo(202);
                awaitFailures(edge, 1);
                advance(edge, HOUR);
                TestEdge.await(() -> destination(edge, "app").get("state").asText().equals("disabled"));
                disabledAt = destination(edge, "app").get("disabled").get("at").asText();
            }
            appDown.set(false);
            try (TestEdge edge = start(receiver)) {
                JsonNode app = destination(edge, "app");
                assertThat(app.get("state").asText()).isEqualTo("disabled");
                assertThat(app.get("disabled").get("at").asText()).isEqualTo(disabledAt);
                assertThat(app.get("disabled").get("last_error").asText()).isEqualTo("HTTP 503");
                assertNothingSentTo(edge, receiver, canaryFailures, 2);

                assertThat(admin(edge, "POST", "/v1/destinations/app/enable", "ops-jane").status()).isEqualTo(200);
                TestEdge.await(() -> count(receiver, "/app") == 4);
                TestEdge.await(() -> destination(edge, "app").get("pending").asLong() == 0);
            }
        }
    }

    /**
     * The run of failures outlives a restart: half an hour into it the node restarts, and the
     * destination is still disabled an hour after the run began (the stored start), not an
     * hour after the restart. The audit shows the disable, made by {@code sluice}.
     */
    @Test
    void aNodeRestartedInTheMiddleOfTheRunDisablesAnHourAfterTheRunBeganAndAuditsItAsSluice() throws Exception {
        AtomicBoolean appDown = new AtomicBoolean(true);
        AtomicInteger canaryFailures = new AtomicInteger();
        long began = now.get();
        try (HookReceiver receiver = receiver(appDown, canaryFailures)) {
            try (TestEdge edge = start(receiver)) {
                assertThat(edge.post("/hooks/gh", Map.of(), "{\"n\":1}").status()).isEqualTo(202);
                awaitFailures(edge, 1); // the run begins
                advance(edge, HOUR / 2);
                awaitFailures(edge, 2); // the pass that sent this attempt stored the run's start
            }
            try (TestEdge edge = start(receiver)) {
                assertThat(destination(edge, "app").get("state").asText()).isNotEqualTo("disabled");
                advance(edge, HOUR / 2);
                awaitFailures(edge, 1); // this node's first failure: an hour into the run
                TestEdge.await(() -> destination(edge, "app").get("state").asText().equals("disabled"));
                JsonNode app = destination(edge, "app");
                assertThat(java.time.Instant.parse(app.get("disabled").get("at").asText()).toEpochMilli())
                        .isEqualTo(began + HOUR);
                assertThat(count(receiver, "/app")).isEqualTo(3);

                JsonNode audit = admin(edge, "GET", "/v1/audit?limit=1", null).json().get("audit").get(0);
                assertThat(audit.get("action").asText()).isEqualTo("disable");
                assertThat(audit.get("actor").asText()).isEqualTo("sluice");
                assertThat(audit.get("before").get("disabled").isNull()).isTrue();
                assertThat(audit.get("after").get("destination").asText()).isEqualTo("app");
                assertThat(audit.get("after").get("disabled").get("last_error").asText()).isEqualTo("HTTP 503");
                assertThat(java.time.Instant.parse(audit.get("after").get("failing_since").asText()).toEpochMilli())
                        .isEqualTo(began);
            }
        }
    }

    @Test
    void enablingADestinationThatIsNotDisabledChangesNothing() throws Exception {
        try (HookReceiver receiver = HookReceiver.start(); TestEdge edge = start(receiver)) {
            DeliveryAdminTest.Answer a = admin(edge, "POST", "/v1/destinations/app/enable", "ops-jane");
            assertThat(a.status()).isEqualTo(200);
            assertThat(a.json().get("state").asText()).isEqualTo("ok");
            assertThat(admin(edge, "POST", "/v1/destinations/nope/enable", "ops-jane").status()).isEqualTo(404);
            assertThat(admin(edge, "GET", "/v1/destinations/app/enable", null).status()).isEqualTo(405);
        }
    }

    /**
     * Commits one more hook (to app and the canary, whose first attempt fails), moves the clock
     * two hours on so that every row is due, and waits for the canary's retry: by then a pass
     * with all of app's rows due has run, and app must have had no attempt ({@code appRequests}
     * as before, nothing in flight, nothing delivered).
     */
    private void assertNothingSentTo(TestEdge edge, HookReceiver receiver, AtomicInteger canaryFailures,
                                     long appRequests) {
        long canary = count(receiver, "/canary");
        long canaryFailed = destination(edge, "canary").get("failed_attempts_total").asLong();
        canaryFailures.set(1);
        assertThat(edge.post("/hooks/gh", Map.of(), "{\"n\":2}").status()).isEqualTo(202);
        // its first attempt failed, and was judged before the clock moves (so its retry is due a second later)
        TestEdge.await(() -> destination(edge, "canary").get("failed_attempts_total").asLong() == canaryFailed + 1);
        advance(edge, 2 * HOUR);
        TestEdge.await(() -> count(receiver, "/canary") == canary + 2); // its retry: a pass ran with app due
        JsonNode app = destination(edge, "app");
        assertThat(count(receiver, "/app")).isEqualTo(appRequests);
        assertThat(app.get("in_flight").asLong()).isZero();
        assertThat(app.get("delivered_total").asLong()).isZero();
    }

    /**
     * Waits until app's {@code n}-th failure was judged (at the wall clock's time then), so
     * that moving the clock after it does not move the failure's time.
     */
    private void awaitFailures(TestEdge edge, long n) {
        TestEdge.await(() -> destination(edge, "app").get("failed_attempts_total").asLong() == n);
    }

    private void advance(TestEdge edge, long millis) {
        now.addAndGet(millis);
        edge.backends().dispatcher().wake();
    }

    private DeliveryAdminTest.Answer admin(TestEdge edge, String method, String path, String actor) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + edge.server.adminAddress().getPort() + path))
                .method(method, HttpRequest.BodyPublishers.noBody())
                .timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + Files.readString(dir.resolve("admin.token")).strip());
        if (actor != null) {
            b.header("X-Sluice-Actor", actor);
        }
        HttpResponse<String> r = CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofString());
        return new DeliveryAdminTest.Answer(r.statusCode(), r.body());
    }

    private JsonNode destination(TestEdge edge, String name) {
        try {
            for (JsonNode d : admin(edge, "GET", "/v1/destinations", null).json().get("destinations")) {
                if (d.get("name").asText().equals(name)) {
                    return d;
                }
            }
        } catch (Exception e) {
            throw new AssertionError(e);
        }
        throw new AssertionError("no destination " + name);
    }
}
