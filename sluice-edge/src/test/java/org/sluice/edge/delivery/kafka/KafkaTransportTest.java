package org.sluice.edge.delivery.kafka;

import org.sluice.edge.delivery.AttemptOutcome;
import org.sluice.edge.delivery.targets.KafkaTarget;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.sluice.edge.delivery.AttemptResult;
import org.sluice.edge.delivery.BreakerSettings;
import org.sluice.edge.delivery.Destination;
import org.sluice.edge.delivery.Ordering;
import org.sluice.edge.delivery.OutboundHeaders;
import org.sluice.edge.delivery.RetryPolicy;
import org.sluice.edge.delivery.Transport;
import org.sluice.edge.store.StoredHook;

/**
 * The attempt's life inside {@link KafkaTransport} without a broker: an attempt is handed to
 * the producer only at {@link KafkaTransport#flush()}; the per-destination sweep completes an
 * attempt that was never answered as {@code timeout}; closing completes whatever is still out.
 * (Delivery through a real broker is {@code KafkaDeliveryTest}'s.)
 */
class KafkaTransportTest {

    private static Destination destination(long timeoutMs) {
        // port 9 (discard) on loopback: nothing there answers as a broker
        return new Destination("k", new KafkaTarget(List.of("127.0.0.1:9"), "t", KafkaTarget.Key.SOURCE, "none", 0, Map.of()),
                timeoutMs, 4, Optional.empty(), OutboundHeaders.of("destinations.k", List.of(), Map.of(), null, "test"),
                Ordering.NONE, RetryPolicy.defaults(), BreakerSettings.defaults());
    }

    private static StoredHook hook(String id) {
        return new StoredHook(id, "acme", "github", null, 1_796_286_158_123L, Map.of(),
                "{}".getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void anAttemptNeverHandedToTheProducerIsCompletedAsATimeoutBySweep() throws Exception {
        Destination d = destination(300);
        try (KafkaTransport t = new KafkaTransport()) {
            t.register(d);
            // no flush: the attempt stays queued, so only the sweep can complete it
            CompletableFuture<AttemptOutcome> f = t.send(d, hook("h-1"), 1, 0);
            AttemptOutcome o = f.get(30, TimeUnit.SECONDS);
            assertThat(o.result()).isEqualTo(AttemptResult.failed(AttemptResult.Failure.TIMEOUT));
            assertThat(o.error()).isEqualTo("kafka: no acknowledgement within 300 ms");
        }
    }

    @Test
    void closingCompletesTheAttemptsStillOutAndRefusesNewOnes() throws Exception {
        Destination d = destination(600_000);
        KafkaTransport t = new KafkaTransport();
        t.register(d);
        CompletableFuture<AttemptOutcome> queued = t.send(d, hook("h-1"), 1, 0);
        assertThat(queued).isNotDone();
        t.close();
        AttemptOutcome o = queued.get(30, TimeUnit.SECONDS);
        assertThat(o.result()).isEqualTo(AttemptResult.failed(AttemptResult.Failure.CONNECT));
        assertThat(o.error()).isEqualTo("kafka: transport closed");
        AttemptOutcome late = t.send(d, hook("h-2"), 1, 0).get(30, TimeUnit.SECONDS);
        assertThat(late.error()).isEqualTo("kafka: transport closed");
        t.flush(); // a flush after close schedules nothing and throws nothing
    }
}
