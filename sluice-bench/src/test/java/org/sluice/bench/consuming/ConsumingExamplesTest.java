package org.sluice.bench.consuming;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.edge.config.ConfigLoader;
import org.sluice.edge.server.EdgeServer;
import org.sluice.testkit.Eventually;
import org.sluice.testkit.NatsServer;

/** The examples of docs/consuming.md, each against a real Sluice (and a real nats-server). */
class ConsumingExamplesTest {

    static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @TempDir
    Path dir;

    private EdgeServer sluice(String destination) {
        return EdgeServer.builder(ConfigLoader.parse("""
                node: {id: consuming, data_dir: "%s"}
                admin: {listen: "127.0.0.1:0", token: "consuming-example-token-0123456789"}
                http: {listen: "127.0.0.1:0"}
                destinations:
                  app:
                %s
                sources:
                  s: {tenant: t, verify: {scheme: none}, deliver_to: [app]}
                """.formatted(dir.resolve("data"), destination.indent(4)))).start();
    }

    private static int post(EdgeServer sluice, String body) throws Exception {
        HttpRequest r = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + sluice.ingestAddress().getPort() + "/hooks/s"))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build();
        return HTTP.send(r, HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    @Test
    void httpReceiverVerifiesTheSignatureAndHandlesEachHookOnceThroughARetry() throws Exception {
        List<HttpHookReceiver.Hook> handled = new CopyOnWriteArrayList<>();
        AtomicBoolean failOnce = new AtomicBoolean(true);
        try (HttpHookReceiver receiver = HttpHookReceiver.start(new InetSocketAddress("127.0.0.1", 0), "/hooks", SECRET, h -> {
            if (failOnce.getAndSet(false)) {
                throw new IllegalStateException("the application failed once: Sluice must try again");
            }
            handled.add(h);
        })) {
            try (EdgeServer sluice = sluice("""
                    url: "http://127.0.0.1:%d/hooks"
                    signing: {scheme: standard_webhooks, secret: "%s"}
                    retry: {initial_ms: 100, max_ms: 200}
                    """.formatted(receiver.port(), SECRET))) {
                for (int i = 0; i < 3; i++) {
                    assertThat(post(sluice, "{\"n\":" + i + "}")).isEqualTo(202);
                }
                Eventually.until("three hooks handled", Duration.ofSeconds(60), () -> handled.size() >= 3);
            }
            assertThat(handled).hasSize(3);
            assertThat(handled.stream().map(HttpHookReceiver.Hook::id).distinct()).hasSize(3);
            assertThat(handled).allMatch(h -> "t".equals(h.tenant()) && "s".equals(h.source()));

            // unsigned or forged: 401, never handled
            HttpRequest forged = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + receiver.port() + "/hooks"))
                    .header("webhook-id", "msg_1").header("webhook-timestamp", Long.toString(System.currentTimeMillis() / 1000))
                    .header("webhook-signature", "v1,AAAA").POST(HttpRequest.BodyPublishers.ofString("{}")).build();
            assertThat(HTTP.send(forged, HttpResponse.BodyHandlers.discarding()).statusCode()).isEqualTo(401);
            assertThat(handled).hasSize(3);
        }
    }

    @Test
    void jetStreamDurableConsumerGetsEveryHookOnceAndResumesWhereItsAcksLeftOff() throws Exception {
        assumeTrue(NatsServer.availableOrSayWhy(), NatsServer.MISSING);
        try (NatsServer nats = NatsServer.start(); Connection connection = Nats.connect(nats.url())) {
            connection.jetStreamManagement().addStream(StreamConfiguration.builder().name("HOOKS").subjects("hooks.>")
                    .storageType(StorageType.File).build());
            List<JetStreamHookConsumer.Hook> handled = new CopyOnWriteArrayList<>();
            try (EdgeServer sluice = sluice("""
                    type: nats
                    servers: ["%s"]
                    subject: "hooks.{tenant}.{source}"
                    """.formatted(nats.url()))) {
                JetStreamHookConsumer consumer = new JetStreamHookConsumer(connection, "HOOKS", "hooks.>", "app", handled::add);
                for (int i = 0; i < 5; i++) {
                    assertThat(post(sluice, "{\"n\":" + i + "}")).isEqualTo(202);
                }
                Eventually.until("five hooks consumed", Duration.ofSeconds(60), () -> {
                    consumer.poll(10, Duration.ofMillis(200));
                    return handled.size() >= 5;
                });
                consumer.close();
                // the same durable name again: its acks are on the server, nothing comes twice
                JetStreamHookConsumer again = new JetStreamHookConsumer(connection, "HOOKS", "hooks.>", "app", handled::add);
                assertThat(again.poll(10, Duration.ofMillis(500))).isZero();
                assertThat(post(sluice, "{\"n\":5}")).isEqualTo(202);
                Eventually.until("the sixth hook consumed", Duration.ofSeconds(60), () -> {
                    again.poll(10, Duration.ofMillis(200));
                    return handled.size() >= 6;
                });
                again.close();
            }
            assertThat(handled.stream().map(JetStreamHookConsumer.Hook::id).distinct()).hasSize(6);
            assertThat(handled).allMatch(h -> "t".equals(h.tenant()) && "s".equals(h.source()) && h.receivedAt() != null);
            assertThat(new String(handled.get(0).body(), java.nio.charset.StandardCharsets.UTF_8)).isEqualTo("{\"n\":0}");
        }
    }
}
