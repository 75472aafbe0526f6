package org.sluice.bench.consuming;

import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamSubscription;
import io.nats.client.Message;
import io.nats.client.PullSubscribeOptions;
import io.nats.client.api.AckPolicy;
import io.nats.client.api.ConsumerConfiguration;
import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * An application reading a {@code type: nats} destination's stream (docs/consuming.md,
 * "NATS JetStream"): a durable pull consumer that acks each message after the application
 * has handled it, and skips a {@code webhook-id} it has handled before.
 *
 * <ul>
 *   <li>Durable: the server keeps the consumer's position under its name, so a restarted
 *       application (or another instance with the same name, sharing the work) resumes
 *       where the last ack left off.</li>
 *   <li>Explicit acks, after processing: a crash between handling and acking means the
 *       message comes again after {@code ack_wait}; hence the dedupe on
 *       {@code webhook-id}, which also covers a hook Sluice re-sent beyond the stream's
 *       duplicate window. (A real application records handled ids with its own data; a
 *       bounded in-memory set stands in here.)</li>
 * </ul>
 */
public final class JetStreamHookConsumer {

    private static final int REMEMBERED_IDS = 100_000;

    /** One hook as the application sees it. */
    public record Hook(String id, String tenant, String source, String receivedAt, byte[] body) {
    }

    private final JetStreamSubscription subscription;
    private final Consumer<Hook> handler;
    private final Map<String, Boolean> seen = new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
            return size() > REMEMBERED_IDS;
        }
    };

    /**
     * Binds (creating it when missing) the durable consumer {@code durable} on {@code stream}
     * for {@code subject} (e.g. {@code hooks.>}).
     */
    public JetStreamHookConsumer(Connection connection, String stream, String subject, String durable,
                                 Consumer<Hook> handler) throws IOException, JetStreamApiException {
        JetStream js = connection.jetStream();
        PullSubscribeOptions options = PullSubscribeOptions.builder().stream(stream).durable(durable)
                .configuration(ConsumerConfiguration.builder().ackPolicy(AckPolicy.Explicit)
                        .ackWait(Duration.ofSeconds(30)).build())
                .build();
        this.subscription = js.subscribe(subject, options);
        this.handler = handler;
    }

    /**
     * Fetches up to {@code batch} messages (waiting at most {@code wait}), handles each new
     * hook and acks every message; returns how many new hooks were handled. A handler that
     * throws leaves its message un-acked: it comes again after {@code ack_wait}.
     */
    public int poll(int batch, Duration wait) {
        int handled = 0;
        List<Message> messages = subscription.fetch(batch, wait);
        for (Message m : messages) {
            String id = m.getHeaders().getFirst("webhook-id");
            if (!seen.containsKey(id)) {
                handler.accept(new Hook(id, m.getHeaders().getFirst("sluice-tenant"),
                        m.getHeaders().getFirst("sluice-source"), m.getHeaders().getFirst("sluice-received-at"), m.getData()));
                seen.put(id, Boolean.TRUE);
                handled++;
            }
            m.ack();
        }
        return handled;
    }

    /** Stops fetching; the durable consumer and its position stay on the server. */
    public void close() {
        subscription.unsubscribe();
    }
}
