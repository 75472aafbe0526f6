package org.sluice.edge.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.testkit.Eventually;
import org.sluice.testkit.NatsServer;

/**
 * Issue 46, point 1: a destination's configured secrets never reach {@code last_error} (so
 * neither the store, the admin API nor the console) nor the log. One destination per
 * transport, each with a secret in every place one can be configured, each pointed at a port
 * where nothing listens, so every attempt fails with the client's own error text. (An HTTP
 * destination's URL may not hold user info, refused at boot: its secrets are header values.)
 */
class SecretsStayOutOfLastErrorTest {

    static final String NATS_PASS = "S3cretNatsPass";
    static final String KAFKA_PASS = "S3cretKafkaPass";
    static final String HEADER_SECRET = "Bearer S3cretHeaderToken";

    @TempDir
    Path dir;

    @Test
    void noConfiguredSecretReachesLastErrorOrTheLog() throws Exception {
        assumeTrue(NatsServer.availableOrSayWhy(), NatsServer.MISSING);
        int closed = closedPort();
        Path config = dir.resolve("sluice.yaml");
        Files.writeString(config, """
                node: {id: secrets, data_dir: "%s"}
                admin: {listen: "127.0.0.1:0", token: "%s"}
                http: {listen: "127.0.0.1:0"}
                destinations:
                  n: {type: nats, servers: ["nats://alice:%s@127.0.0.1:%d"], subject: "hooks.{tenant}.{source}",
                      timeout_ms: 2000, retry: {initial_ms: 100, max_ms: 300}, breaker: {failures: 1000}}
                  k: {type: kafka, bootstrap_servers: ["127.0.0.1:%d"], topic: "hooks",
                      properties: {security.protocol: SASL_PLAINTEXT, sasl.mechanism: PLAIN,
                        sasl.jaas.config: "org.apache.kafka.common.security.plain.PlainLoginModule required username=\\"bob\\" password=\\"%s\\";"},
                      timeout_ms: 2000, retry: {initial_ms: 100, max_ms: 300}, breaker: {failures: 1000}}
                  h: {url: "http://127.0.0.1:%d/hook", headers: {Authorization: "%s"},
                      timeout_ms: 2000, retry: {initial_ms: 100, max_ms: 300}, breaker: {failures: 1000}}
                sources:
                  sn: {tenant: t, verify: {scheme: none}, deliver_to: [n]}
                  sk: {tenant: t, verify: {scheme: none}, deliver_to: [k]}
                  sh: {tenant: t, verify: {scheme: none}, deliver_to: [h]}
                """.formatted(dir.resolve("data"), NatsDeliveryTest.TOKEN, NATS_PASS, closed, closed, KAFKA_PASS,
                closed, HEADER_SECRET));
        try (NatsDeliveryTest.Sluice sluice = NatsDeliveryTest.Sluice.start(config)) {
            for (String source : List.of("sn", "sk", "sh")) {
                Http.Response r = Http.post(sluice.ingest(), "/hooks/" + source, Map.of(),
                        "{}".getBytes(StandardCharsets.UTF_8));
                assertThat(r.status()).as("ingest answer").isEqualTo(202);
                String id = CrashSafetyTest.JSON.readTree(r.body()).get("id").asText();
                Eventually.until("a failed attempt at " + source, NatsDeliveryTest.LONG, () -> {
                    JsonNode d = sluice.delivery(id);
                    return d.get("attempts").asInt() >= 2 && !d.get("last_error").isNull();
                });
                String shown = sluice.get("/v1/hooks/" + id).toString();
                assertThat(shown).as(source).doesNotContain(NATS_PASS, KAFKA_PASS, "S3cretHeaderToken");
            }
            String log = String.join("\n", sluice.jvm().stdoutLines()) + String.join("\n", sluice.jvm().stderrLines());
            assertThat(log).doesNotContain(NATS_PASS, KAFKA_PASS, "S3cretHeaderToken");
        }
    }

    private static int closedPort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
