package org.sluice.edge.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.nats.client.api.MessageInfo;
import io.nats.client.impl.Headers;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.edge.cli.Main;
import org.sluice.testkit.ChildJvm;
import org.sluice.testkit.Eventually;
import org.sluice.testkit.NatsServer;

/**
 * {@code type: nats} end to end: a real {@code nats-server -js} process, Sluice in a child
 * JVM (so it can be SIGKILLed), and the test reading the stream back with its own client.
 * Streams are made by the test: Sluice creates none.
 */
class NatsDeliveryTest {

    static final String TOKEN = "nats-delivery-test-token-0123456789";
    static final Duration LONG = Duration.ofSeconds(90);
    static final int MAX_IN_FLIGHT = 8;
    static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @TempDir
    Path dir;

    @BeforeAll
    static void natsServerPresent() {
        assumeTrue(NatsServer.availableOrSayWhy(), NatsServer.MISSING);
    }

    /** A running Sluice child and where it listens. */
    record Sluice(ChildJvm jvm, InetSocketAddress ingest, URI admin) implements AutoCloseable {
        static Sluice start(Path config) {
            ChildJvm jvm = CrashSafetyTest.startServer(config);
            String line = jvm.awaitLine(l -> l.startsWith("sluice: serving on"), Duration.ofSeconds(60));
            // "sluice: serving on /127.0.0.1:PORT (admin /127.0.0.1:PORT)"
            String[] parts = line.substring("sluice: serving on ".length()).split(" ");
            String ingest = parts[0];
            String admin = parts[2].replace(")", "");
            return new Sluice(jvm, new InetSocketAddress("127.0.0.1", port(ingest)),
                    URI.create("http://127.0.0.1:" + port(admin)));
        }

        private static int port(String hostPort) {
            return Integer.parseInt(hostPort.substring(hostPort.lastIndexOf(':') + 1));
        }

        JsonNode get(String path) {
            return admin("GET", path, null);
        }

        JsonNode admin(String method, String path, String body) {
            try {
                HttpRequest.Builder b = HttpRequest.newBuilder(admin.resolve(path)).header("Authorization", "Bearer " + TOKEN)
                        .header("X-Sluice-Actor", "nats-test")
                        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
                HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
                return CrashSafetyTest.JSON.readTree(r.body());
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }

        /** The hook's one delivery row (its source delivers to one destination). */
        JsonNode delivery(String id) {
            return get("/v1/hooks/" + id).get("deliveries").get(0);
        }

        /** Posts a hook; returns the id of its 202. */
        String post(Map<String, String> headers, byte[] body) {
            Http.Response r = Http.post(ingest, "/hooks/s", headers, body);
            assertThat(r.status()).as("ingest answer").isEqualTo(202);
            try {
                return CrashSafetyTest.JSON.readTree(r.body()).get("id").asText();
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }

        @Override
        public void close() {
            jvm.terminate();
            jvm.waitFor(Duration.ofSeconds(60));
            jvm.close();
        }
    }

    private Path config(NatsServer nats, String destinationExtra) throws Exception {
        Path config = dir.resolve("sluice.yaml");
        Files.writeString(config, """
                node: {id: nats, data_dir: "%s"}
                admin: {listen: "127.0.0.1:0", token: "%s"}
                http: {listen: "127.0.0.1:0"}
                destinations:
                  bus:
                    type: nats
                    servers: ["%s"]
                    subject: "hooks.{tenant}.{source}"
                    max_in_flight: %d
                    timeout_ms: 5000
                %s
                sources:
                  s: {tenant: t, verify: {scheme: none}, dedupe: {header: X-Event-Id}, deliver_to: [bus]}
                """.formatted(dir.resolve("data"), TOKEN, nats.url(), MAX_IN_FLIGHT, destinationExtra.indent(4)));
        return config;
    }

    @Test
    void eachHookIsInTheStreamOnceAfterAKillNineAndTheResendsThatFollowIt() throws Exception {
        try (NatsServer nats = NatsServer.start();
             NatsStream stream = NatsStream.on(nats.url(), "HOOKS").create(-1, "hooks.>")) {
            Path config = config(nats, "");
            Map<String, String> acked = HookStorm.sendUntilKilled(config, "400 hooks acknowledged and 100 in the stream", LONG,
                    acks -> acks >= 400 && stream.count() >= 100);
            long beforeRestart = stream.count();

            Set<String> ackedIds = new HashSet<>(acked.values());
            try (Sluice again = Sluice.start(config)) {
                Eventually.until("every acknowledged hook in the stream", LONG,
                        () -> stream.idCounts().keySet().containsAll(ackedIds));
                // the rows the crash left claimed are sent again: let the dispatcher finish them
                Eventually.until("no delivery pending", LONG,
                        () -> again.get("/v1/destinations").get("destinations").get(0).get("pending").asLong() == 0);
            }
            Map<String, Integer> times = stream.idCounts();
            Set<String> missing = new HashSet<>(ackedIds);
            missing.removeAll(times.keySet()); // a set difference: AssertJ's containsAll scans per id
            assertThat(missing).as("202'd hooks not in the stream (of %d)", ackedIds.size()).isEmpty();
            assertThat(times.values()).as("each hook once (%d messages before the restart, %d after)", beforeRestart,
                    stream.count()).allMatch(n -> n == 1);
            assertThat(stream.count()).isEqualTo(times.size());
        }
    }

    @Test
    void messageCarriesTheBodyByteForByteAndTheHeadersInOrderAndARedeliveryIsDroppedByTheStream() throws Exception {
        try (NatsServer nats = NatsServer.start();
             NatsStream stream = NatsStream.on(nats.url(), "HOOKS").create(-1, "hooks.>");
             Sluice sluice = Sluice.start(config(nats, "forward_headers: [Content-Type, X-Trace]"))) {
            byte[] body = new byte[300];
            for (int i = 0; i < body.length; i++) {
                body[i] = (byte) (i * 7 + 1); // not text: every byte value class, no NUL
            }
            Map<String, String> headers = new LinkedHashMap<>();
            headers.put("Content-Type", "application/octet-stream");
            headers.put("X-Trace", "trace-1");
            headers.put("X-Other", "not forwarded");
            headers.put("X-Event-Id", "e-1");
            String id = sluice.post(headers, body);
            Eventually.until("the hook delivered", LONG, () -> "delivered".equals(sluice.delivery(id).get("state").asText()));
            assertThat(sluice.delivery(id).get("last_status").isNull()).as("a publish ack has no HTTP status").isTrue();

            List<MessageInfo> messages = stream.messages();
            assertThat(messages).hasSize(1);
            MessageInfo m = messages.get(0);
            assertThat(m.getSubject()).isEqualTo("hooks.t.s");
            assertThat(m.getData()).isEqualTo(body);
            Headers h = m.getHeaders();
            assertThat(h.getFirst("Nats-Msg-Id")).isEqualTo(id);
            assertThat(h.getFirst("webhook-id")).isEqualTo(id);
            assertThat(h.getFirst("sluice-tenant")).isEqualTo("t");
            assertThat(h.getFirst("sluice-source")).isEqualTo("s");
            assertThat(h.getFirst("sluice-attempt")).isEqualTo("1");
            assertThat(h.getFirst("content-type")).isEqualTo("application/octet-stream");
            assertThat(h.getFirst("x-trace")).isEqualTo("trace-1");
            assertThat(h.keySetIgnoreCase()).doesNotContain("x-other", "x-event-id");
            String receivedAt = h.getFirst("sluice-received-at");
            assertThat(receivedAt).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z");
            assertThat(Instant.parse(receivedAt)).isEqualTo(Instant.parse(sluice.get("/v1/hooks/" + id).get("received_at").asText()));
            // NATS headers are a map: the client keeps no order, so the set is what is checked
            assertThat(h.keySet()).containsExactlyInAnyOrder("Nats-Msg-Id", "webhook-id", "sluice-tenant", "sluice-source",
                    "sluice-received-at", "sluice-attempt", "content-type", "x-trace");

            // a redelivery inside the stream's duplicate window: acked (delivered again), not stored twice
            JsonNode scheduled = sluice.admin("POST", "/v1/hooks/" + id + "/redeliver", null);
            assertThat(scheduled.get("scheduled").asInt()).isEqualTo(1);
            Eventually.until("the redelivery done", LONG, () -> {
                JsonNode d = sluice.delivery(id);
                return "delivered".equals(d.get("state").asText()) && d.get("attempts").asInt() == 1
                        && !d.get("delivered_at").isNull();
            });
            Eventually.until("the redelivery acked", LONG,
                    () -> sluice.get("/v1/destinations").get("destinations").get(0).get("delivered_total").asLong() == 2);
            assertThat(stream.count()).as("the stream dropped the second copy").isEqualTo(1);
        }
    }

    @Test
    void noStreamIsRetriedWithTheReasonInLastErrorAndAMessageOverMaxMsgSizeIsDeadWithPermanentError() throws Exception {
        try (NatsServer nats = NatsServer.start();
             Sluice sluice = Sluice.start(config(nats, "retry: {initial_ms: 100, max_ms: 300}\nbreaker: {failures: 1000}"))) {
            String early = sluice.post(Map.of("X-Event-Id", "early"), "{\"n\":1}".getBytes(StandardCharsets.UTF_8));
            Eventually.until("a failed attempt with a reason", LONG, () -> {
                JsonNode d = sluice.delivery(early);
                return d.get("attempts").asInt() >= 2 && d.get("last_error").asText().contains("no responders");
            });
            assertThat(sluice.delivery(early).get("state").asText()).isEqualTo("pending");

            try (NatsStream stream = NatsStream.on(nats.url(), "HOOKS").create(512, "hooks.>")) {
                Eventually.until("delivered once the stream exists", LONG,
                        () -> "delivered".equals(sluice.delivery(early).get("state").asText()));
                String big = sluice.post(Map.of("X-Event-Id", "big"), new byte[2000]);
                try {
                    Eventually.until("the big hook dead", LONG, () -> "dead".equals(sluice.delivery(big).get("state").asText()));
                } catch (AssertionError e) {
                    throw new AssertionError(e.getMessage() + ": " + sluice.delivery(big) + "\n" + sluice.get("/v1/destinations") + "\n" + String.join("\n", sluice.jvm().stdoutLines()) + String.join("\n", sluice.jvm().stderrLines()), e);
                }
                JsonNode d = sluice.delivery(big);
                assertThat(d.get("dead_reason").asText()).isEqualTo("permanent_error");
                assertThat(d.get("attempts").asInt()).isEqualTo(1);
                assertThat(d.get("last_error").asText()).contains("10054");
                assertThat(stream.idCounts()).containsOnlyKeys(early);
            }
        }
    }

    @Test
    void serverDownThenUpDeliversEveryHookOnceAndTheBreakerOpensMeanwhile() throws Exception {
        try (NatsServer nats = NatsServer.start();
             NatsStream stream = NatsStream.on(nats.url(), "HOOKS").create(-1, "hooks.>");
             Sluice sluice = Sluice.start(config(nats,
                     "retry: {initial_ms: 100, max_ms: 500}\nbreaker: {failures: 3, open_ms: 500, max_open_ms: 1000}"))) {
            String first = sluice.post(Map.of("X-Event-Id", "first"), "{\"n\":0}".getBytes(StandardCharsets.UTF_8));
            Eventually.until("the first hook delivered", LONG, () -> "delivered".equals(sluice.delivery(first).get("state").asText()));
            nats.stop();
            List<String> ids = new ArrayList<>(List.of(first));
            for (int i = 1; i <= 20; i++) {
                ids.add(sluice.post(Map.of("X-Event-Id", "e-" + i), ("{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8)));
            }
            Eventually.until("the breaker seen open", LONG,
                    () -> "open".equals(sluice.get("/v1/destinations").get("destinations").get(0).get("state").asText()));
            assertThat(sluice.delivery(ids.get(20)).get("last_error").asText()).isNotBlank();
            nats.startAgain();
            Eventually.until("every hook in the stream", LONG, () -> {
                try {
                    return stream.idCounts().keySet().containsAll(ids);
                } catch (RuntimeException notYet) { // the restarted server's JetStream API may not answer while it recovers
                    return false;
                }
            });
            Eventually.until("every delivery done", LONG,
                    () -> sluice.get("/v1/destinations").get("destinations").get(0).get("pending").asLong() == 0);
            assertThat(stream.idCounts().values()).allMatch(n -> n == 1);
            assertThat(stream.count()).isEqualTo(ids.size());
            assertThat(sluice.get("/v1/destinations").get("destinations").get(0).get("state").asText()).isEqualTo("ok");
        }
    }

    @Test
    void aCredentialsFileLetsSluiceIntoAServerThatRequiresOneAndAStrangersIsRetriedWithTheReason() throws Exception {
        NatsOperator operator = NatsOperator.create();
        Path good = operator.userCreds(dir.resolve("sluice.creds"), "sluice");
        // a user of an account this server does not trust
        Path stranger = NatsOperator.create().userCreds(dir.resolve("stranger.creds"), "stranger");
        try (NatsServer nats = NatsServer.start("-c", operator.serverConfig(dir.resolve("nats.conf")).toString());
             NatsStream stream = NatsStream.on(nats.url(), "HOOKS", operator.userCreds(dir.resolve("test.creds"), "test"))
                     .create(-1, "hooks.>")) {
            assertThatThrownBy(() -> io.nats.client.Nats.connect(nats.url()).close())
                    .as("the server admits no client without credentials").isInstanceOf(java.io.IOException.class);
            Path config = dir.resolve("sluice.yaml");
            Files.writeString(config, """
                    node: {id: creds, data_dir: "%s"}
                    admin: {listen: "127.0.0.1:0", token: "%s"}
                    http: {listen: "127.0.0.1:0"}
                    destinations:
                      bus: {type: nats, servers: ["%s"], subject: "hooks.{tenant}.{source}", credentials_file: "%s"}
                      stranger: {type: nats, servers: ["%s"], subject: "hooks.{tenant}.{source}", credentials_file: "%s",
                                 timeout_ms: 2000, retry: {initial_ms: 100, max_ms: 300}, breaker: {failures: 1000}}
                    sources:
                      s: {tenant: t, verify: {scheme: none}, deliver_to: [bus]}
                      x: {tenant: t, verify: {scheme: none}, deliver_to: [stranger]}
                    """.formatted(dir.resolve("data"), TOKEN, nats.url(), good, nats.url(), stranger));
            try (Sluice sluice = Sluice.start(config)) {
                String id = sluice.post(Map.of(), "{\"n\":1}".getBytes(StandardCharsets.UTF_8));
                Eventually.until("delivered with the credentials", LONG,
                        () -> "delivered".equals(sluice.delivery(id).get("state").asText()));
                assertThat(stream.idCounts()).containsOnlyKeys(id);

                Http.Response r = Http.post(sluice.ingest(), "/hooks/x", Map.of(), "{\"n\":2}".getBytes(StandardCharsets.UTF_8));
                assertThat(r.status()).isEqualTo(202);
                String refused = CrashSafetyTest.JSON.readTree(r.body()).get("id").asText();
                Eventually.until("attempts refused with the reason", LONG, () -> {
                    JsonNode d = sluice.delivery(refused);
                    return d.get("attempts").asInt() >= 2
                            && d.get("last_error").asText().toLowerCase(java.util.Locale.ROOT).contains("authorization violation");
                });
                assertThat(sluice.delivery(refused).get("state").asText()).isEqualTo("pending");
                assertThat(stream.idCounts()).containsOnlyKeys(id);
            }
        }
    }
}
