package org.sluice.edge.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.testkit.HookReceiver;

/**
 * A destination paced {@code adaptive} on a real server, delivering to a real HTTP receiver
 * that takes everything, then answers 429 to everything, then takes everything again. The
 * server's clocks (monotonic and wall) are manual, moved 100 ms at a time, each step waited
 * on until every attempt sent is answered and judged: the pace, read from
 * {@code GET /v1/destinations} ({@code pace_per_second}) and {@code /metrics}, rises, backs
 * off to its min on the 429s (one cut per instant of the clock, so not at once) while the 429s
 * stay within what the pace allowed, recovers, and every hook is delivered. Counts and bounds
 * only; the exact steps are {@code AdaptivePacedDispatchTest}'s and {@code AdaptivePaceTest}'s.
 */
class AdaptivePacingTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int HOOKS = 300;
    private static final Duration STEP = Duration.ofMillis(100);

    /** {@code app} adaptive from 1 to 50 per second; {@code fixed} and {@code plain} shown beside it. */
    private static final String CONFIG = """
            http: {listen: "127.0.0.1:0"}
            destinations:
              app:
                url: "%s"
                rate: {rate: adaptive, min: 1, max: 50}
                retry: {initial_ms: 100, max_ms: 100, max_attempts: 100000}
                breaker: {failures: 1000000}
              fixed:
                url: "%s"
                rate: {rate: 5, burst: 5}
              plain:
                url: "%s"
            sources:
              gh: {tenant: acme, verify: {scheme: none}, deliver_to: [app]}
            """;

    private final AtomicLong wall = new AtomicLong(1_900_000_000_000L);
    @TempDir
    Path dir;

    @Test
    void thePaceBacksOffOn429sAndRecoversAfterAndEveryHookIsDelivered() throws Exception {
        AtomicBoolean full = new AtomicBoolean();
        try (HookReceiver receiver = HookReceiver.start()
                .answerWhen(r -> full.get(), HookReceiver.Answer.status(429))
                .defaultAnswer(HookReceiver.Answer.status(200));
             TestEdge edge = TestEdge.startWith(dir, CONFIG.formatted(receiver.uri("/app"), receiver.uri("/fixed"),
                     receiver.uri("/plain")), b -> b.epochMillis(wall::get))) {
            JsonNode app = destination(edge, "app");
            assertThat(app.get("pacing").asText()).isEqualTo("adaptive");
            assertThat(app.get("pace_per_second").asDouble()).isEqualTo(1.0);
            assertThat(destination(edge, "fixed").get("pacing").asText()).isEqualTo("fixed");
            assertThat(destination(edge, "fixed").get("pace_per_second").asDouble()).isEqualTo(5.0);
            assertThat(destination(edge, "plain").get("pacing").isNull()).isTrue();
            assertThat(destination(edge, "plain").get("pace_per_second").isNull()).isTrue();
            assertThat(destination(edge, "plain").has("in_flight")).isTrue(); // the existing fields stay

            for (int i = 0; i < HOOKS; i++) {
                assertThat(edge.post("/hooks/gh", Map.of(), "{\"n\":" + i + "}").status()).isEqualTo(202);
            }

            // taking everything: the pace rises to 10 per second, never past max
            int steps = 0;
            while (pace(edge) < 10) {
                assertThat(steps++).as("steps to rise to 10/s").isLessThan(1_000);
                step(edge, receiver);
                assertThat(pace(edge)).isLessThanOrEqualTo(50);
            }
            assertThat(metric(edge)).isEqualTo(pace(edge));

            // 429 to everything. A cut needs an attempt sent after the last cut, so there is at most one
            // per instant of the clock: the step's, and one at the instant before if a pass ran there after
            // the step was seen settled. The first step is a second long, so that at 10/s or more it sends
            // for certain; after it the pace is at least 0.49 of its top (never min at once), then falls to min
            full.set(true);
            double top = pace(edge);
            int sentBefore = receiver.requestCount();
            step(edge, receiver, Duration.ofSeconds(1));
            TestEdge.await(() -> receiver.requestCount() > sentBefore);
            settle(edge, receiver);
            assertThat(pace(edge)).isLessThan(top + 1).isGreaterThanOrEqualTo(Math.floor(top * 490) / 1000);
            long elapsedMs = 1_000;
            while (pace(edge) > 1) {
                assertThat(elapsedMs).as("clock time to fall to min").isLessThan(100_000);
                step(edge, receiver);
                elapsedMs += STEP.toMillis();
            }
            int refused = receiver.requestCount() - sentBefore;
            // what a GCRA bucket paced at most at top + 1 (a late rise included) admits over that time,
            // its tolerance at most a second (one attempt at min): 1 + (top + 1) x (1 s + elapsed)
            double allowed = 1 + (top + 1) * (1 + elapsedMs / 1000.0);
            assertThat(refused).isPositive().isLessThanOrEqualTo((int) allowed);

            // taking everything again: the pace rises again and the backlog is delivered, nothing lost
            full.set(false);
            steps = 0;
            while (destination(edge, "app").get("pending").asLong() > 0) {
                assertThat(steps++).as("steps to deliver the backlog").isLessThan(5_000);
                step(edge, receiver);
            }
            assertThat(pace(edge)).isGreaterThan(1);
            TestEdge.await(() -> destination(edge, "app").get("delivered_total").asLong() == HOOKS);
            assertThat(destination(edge, "app").get("dead").asLong()).isZero();
            assertThat(receiver.requestCount() - refused).isEqualTo(HOOKS);
        }
    }

    /** Moves both clocks 100 ms on, wakes the dispatcher and waits until every attempt sent is answered and judged. */
    private void step(TestEdge edge, HookReceiver receiver) {
        step(edge, receiver, STEP);
    }

    private void step(TestEdge edge, HookReceiver receiver, Duration by) {
        edge.clock.advance(by);
        wall.addAndGet(by.toMillis());
        edge.backends().dispatcher().wake();
        settle(edge, receiver);
    }

    private void settle(TestEdge edge, HookReceiver receiver) {
        TestEdge.await(() -> {
            JsonNode app = destination(edge, "app");
            return receiver.inFlight() == 0 && app.get("in_flight").asLong() == 0
                    && app.get("delivered_total").asLong() + app.get("failed_attempts_total").asLong()
                    == receiver.requestCount();
        });
    }

    private double pace(TestEdge edge) {
        return destination(edge, "app").get("pace_per_second").asDouble();
    }

    /** {@code sluice_delivery_pace_per_second{destination="app"}} from {@code /metrics}. */
    private static double metric(TestEdge edge) {
        Http.Response r = Http.get(edge.server.adminAddress(), "/metrics");
        assertThat(r.status()).isEqualTo(200);
        for (String line : r.body().split("\n")) {
            if (line.startsWith("sluice_delivery_pace_per_second{") && line.contains("destination=\"app\"")) {
                return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        throw new AssertionError("no sluice_delivery_pace_per_second of app in /metrics");
    }

    private JsonNode destination(TestEdge edge, String name) {
        try {
            String token = Files.readString(dir.resolve("admin.token")).strip();
            Http.Response r;
            try (Http http = Http.connect(edge.server.adminAddress())) {
                r = http.request("GET", "/v1/destinations", Map.of("Authorization", "Bearer " + token), null);
            }
            assertThat(r.status()).isEqualTo(200);
            for (JsonNode d : JSON.readTree(r.body()).get("destinations")) {
                if (d.get("name").asText().equals(name)) {
                    return d;
                }
            }
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
        throw new AssertionError("no destination " + name);
    }
}
