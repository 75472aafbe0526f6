package org.sluice.edge.delivery.nats;

import org.sluice.edge.delivery.AttemptOutcome;
import org.sluice.edge.delivery.targets.NatsTarget;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.nats.client.Connection;
import io.nats.client.JetStreamSubscription;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.nats.client.impl.Headers;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.sluice.edge.delivery.AttemptResult;
import org.sluice.edge.delivery.BreakerSettings;
import org.sluice.edge.delivery.Destination;
import org.sluice.edge.delivery.Ordering;
import org.sluice.edge.delivery.OutboundHeaders;
import org.sluice.edge.delivery.RetryPolicy;
import org.sluice.edge.delivery.Transport;
import org.sluice.edge.store.StoredHook;
import org.sluice.testkit.Eventually;
import org.sluice.testkit.NatsServer;

/**
 * {@link NatsTransport}'s own end of an attempt against a real {@code nats-server}: a publish
 * that something receives but nobody acknowledges is ended by the destination's sweep as
 * {@code timeout}; closing ends the attempts still out; the server's own acks are the shape
 * the transport recognises from their bytes, and a message carries the headers written in
 * wire form as they were written. (Delivery into a stream through the server is
 * {@code NatsDeliveryTest}'s.)
 */
class NatsTransportTest {

    @BeforeAll
    static void natsServerPresent() {
        assumeTrue(NatsServer.availableOrSayWhy(), NatsServer.MISSING);
    }

    private static Destination destination(String url, long timeoutMs) {
        return new Destination("n", new NatsTarget(List.of(url), "silent.{tenant}", Optional.empty()), timeoutMs, 4,
                Optional.empty(), OutboundHeaders.of("destinations.n", List.of(), Map.of(), null, "test"), Ordering.NONE,
                RetryPolicy.defaults(), BreakerSettings.defaults());
    }

    private static StoredHook hook(String id) {
        return new StoredHook(id, "acme", "github", null, 1_796_286_158_123L, Map.of(),
                "{}".getBytes(StandardCharsets.UTF_8));
    }

    private static void stream(Connection c, String name, String subjects) throws Exception {
        c.jetStreamManagement().addStream(StreamConfiguration.builder().name(name).subjects(subjects)
                .storageType(StorageType.File).build());
    }

    /** Registers {@code d} and waits until its connection is up (an attempt before fails as {@code connect}). */
    private static void connected(NatsTransport t, Destination d) {
        t.register(d);
        Eventually.until("the destination's connection is up", () -> {
            AttemptOutcome o = t.send(d, hook("probe"), 1, 0).getNow(null);
            // still out: the connection took it; anything but a connect failure says the same
            return o == null || !(o.result() instanceof AttemptResult.Failed f && f.failure() == AttemptResult.Failure.CONNECT);
        });
    }

    /** A tenant named in the ingest URL (tenant_path routing) with a dot would split {tenant}: the attempt is dead at once. */
    @Test
    void aTenantWithADotInTheUrlIsAPermanentErrorNotAnotherSubject() throws Exception {
        try (NatsTransport t = new NatsTransport()) {
            Destination d = destination("nats://127.0.0.1:1", 300);
            t.register(d);
            for (String tenant : List.of("acme.billing", "acme.")) {
                StoredHook h = new StoredHook("h-dot", tenant, "github", null, 1_796_286_158_123L, Map.of(), new byte[0]);
                AttemptOutcome o = t.send(d, h, 1, 0).get(30, TimeUnit.SECONDS);
                assertThat(o.result()).isEqualTo(AttemptResult.permanent());
                assertThat(o.error()).isEqualTo("tenant id " + tenant + " cannot fill {tenant} in subject silent.{tenant}:"
                        + " a tenant id there must be one subject token, without a dot");
            }
        }
    }

    @Test
    void aPublishReceivedButNeverAcknowledgedEndsAsATimeoutBySweep() throws Exception {
        try (NatsServer nats = NatsServer.start();
             Connection listener = Nats.connect(nats.url());
             NatsTransport t = new NatsTransport()) {
            // a plain subscriber: the request has a responder (no 503), which never answers
            listener.createDispatcher(m -> { }).subscribe("silent.>");
            listener.flush(Duration.ofSeconds(5));
            Destination d = destination(nats.url(), 300);
            connected(t, d);
            CompletableFuture<AttemptOutcome> f = t.send(d, hook("h-1"), 1, 0);
            AttemptOutcome o = f.get(30, TimeUnit.SECONDS);
            assertThat(o.result()).isEqualTo(AttemptResult.failed(AttemptResult.Failure.TIMEOUT));
            assertThat(o.error()).isEqualTo("no publish ack within timeout_ms 300");
        }
    }

    @Test
    void closingEndsTheAttemptsStillOut() throws Exception {
        try (NatsServer nats = NatsServer.start();
             Connection listener = Nats.connect(nats.url())) {
            listener.createDispatcher(m -> { }).subscribe("silent.>");
            listener.flush(Duration.ofSeconds(5));
            Destination d = destination(nats.url(), 600_000);
            NatsTransport t = new NatsTransport();
            connected(t, d);
            CompletableFuture<AttemptOutcome> out = t.send(d, hook("h-1"), 1, 0);
            assertThat(out).isNotDone();
            t.close();
            AttemptOutcome o = out.get(30, TimeUnit.SECONDS);
            assertThat(o.result()).isInstanceOf(AttemptResult.Failed.class);
            assertThat(((AttemptResult.Failed) o.result()).failure())
                    .isIn(AttemptResult.Failure.CONNECT, AttemptResult.Failure.BROKER);
        }
    }

    @Test
    void theServersAcksAndDuplicateAcksAreRecognisedFromTheirBytes() throws Exception {
        try (NatsServer nats = NatsServer.start();
             Connection c = Nats.connect(nats.url())) {
            stream(c, "ACKS", "acks.>");
            Headers h = new Headers().add(NatsTransport.MSG_ID, "hook-1");
            Message first = c.request("acks.one", h, "{}".getBytes(StandardCharsets.UTF_8), Duration.ofSeconds(10));
            Message again = c.request("acks.one", h, "{}".getBytes(StandardCharsets.UTF_8), Duration.ofSeconds(10));
            String firstText = new String(first.getData(), StandardCharsets.US_ASCII);
            String againText = new String(again.getData(), StandardCharsets.US_ASCII);
            assertThat(NatsTransport.isPlainAck(first.getData())).as(firstText).isTrue();
            assertThat(againText).contains("duplicate");
            assertThat(NatsTransport.isPlainAck(again.getData())).as(againText).isTrue();
        }
    }

    @Test
    void aPublishedMessageCarriesTheHeadersAsWrittenInWireForm() throws Exception {
        try (NatsServer nats = NatsServer.start();
             Connection c = Nats.connect(nats.url());
             NatsTransport t = new NatsTransport()) {
            stream(c, "WIRE", "wire.>");
            Destination d = new Destination("w", new NatsTarget(List.of(nats.url()), "wire.{tenant}.{source}", Optional.empty()),
                    10_000, 4, Optional.empty(),
                    OutboundHeaders.of("destinations.w", List.of("X-Trace"), Map.of(), null, "test"), Ordering.NONE,
                    RetryPolicy.defaults(), BreakerSettings.defaults());
            t.register(d);
            StoredHook hook = new StoredHook("h-wire", "acme", "github", null, 1_796_286_158_123L,
                    Map.of("x-trace", "tr-1"), "{\"a\":1}".getBytes(StandardCharsets.UTF_8));
            // an attempt before the connection is up fails as connect; the stream keeps one copy of the id
            Eventually.until("the publish is acknowledged",
                    () -> t.send(d, hook, 3, 0).join().result() instanceof AttemptResult.Acknowledged);
            JetStreamSubscription sub = c.jetStream().subscribe("wire.acme.github");
            Message m = sub.nextMessage(Duration.ofSeconds(10));
            assertThat(m).isNotNull();
            assertThat(m.getData()).isEqualTo(hook.body());
            Headers got = m.getHeaders();
            assertThat(got.getFirst(NatsTransport.MSG_ID)).isEqualTo("h-wire");
            assertThat(got.getFirst("webhook-id")).isEqualTo("h-wire");
            assertThat(got.getFirst("sluice-tenant")).isEqualTo("acme");
            assertThat(got.getFirst("sluice-source")).isEqualTo("github");
            assertThat(got.getFirst("sluice-received-at")).isEqualTo("2026-12-03T08:22:38.123Z");
            assertThat(got.getFirst("sluice-attempt")).isEqualTo("3");
            assertThat(got.getFirst("x-trace")).isEqualTo("tr-1");
            assertThat(got.size()).isEqualTo(7);
        }
    }
}
