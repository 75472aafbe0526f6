package org.sluice.edge.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.nats.client.Connection;
import io.nats.client.Nats;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.sluice.edge.store.StoredHook;
import org.sluice.testkit.Eventually;
import org.sluice.testkit.NatsServer;

/**
 * {@link NatsTransport}'s own end of an attempt against a real {@code nats-server}: a publish
 * that something receives but nobody acknowledges is ended by the destination's sweep as
 * {@code timeout}; closing ends the attempts still out. (Delivery into a stream is
 * {@code NatsDeliveryTest}'s.)
 */
class NatsTransportTest {

    @BeforeAll
    static void natsServerPresent() {
        assumeTrue(NatsServer.availableOrSayWhy(), NatsServer.MISSING);
    }

    private static Destination destination(String url, long timeoutMs) {
        return new Destination("n", Destination.TYPE_NATS, null, timeoutMs, 4, Optional.empty(), Optional.empty(),
                OutboundHeaders.of("destinations.n", List.of(), Map.of(), null, "test"), Ordering.NONE,
                RetryPolicy.defaults(), BreakerSettings.defaults(), Optional.empty(),
                Optional.of(new NatsSettings(List.of(url), "silent.{tenant}", Optional.empty())));
    }

    private static StoredHook hook(String id) {
        return new StoredHook(id, "acme", "github", null, 1_796_286_158_123L, Map.of(),
                "{}".getBytes(StandardCharsets.UTF_8));
    }

    /** Registers {@code d} and waits until its connection is up (an attempt before fails as {@code connect}). */
    private static void connected(NatsTransport t, Destination d) {
        t.register(d);
        Eventually.until("the destination's connection is up", () -> {
            Transport.Outcome o = t.send(d, hook("probe"), 1, 0).getNow(null);
            // still out: the connection took it; anything but a connect failure says the same
            return o == null || !(o.result() instanceof AttemptResult.Failed f && f.failure() == AttemptResult.Failure.CONNECT);
        });
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
            CompletableFuture<Transport.Outcome> f = t.send(d, hook("h-1"), 1, 0);
            Transport.Outcome o = f.get(30, TimeUnit.SECONDS);
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
            CompletableFuture<Transport.Outcome> out = t.send(d, hook("h-1"), 1, 0);
            assertThat(out).isNotDone();
            t.close();
            Transport.Outcome o = out.get(30, TimeUnit.SECONDS);
            assertThat(o.result()).isInstanceOf(AttemptResult.Failed.class);
            assertThat(((AttemptResult.Failed) o.result()).failure())
                    .isIn(AttemptResult.Failure.CONNECT, AttemptResult.Failure.BROKER);
        }
    }
}
