package org.sluice.edge.delivery;

import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.sluice.core.Limit;

/**
 * {@code destinations.<name>:} one place accepted hooks are handed on to, validated.
 *
 * @param name        the key under {@code destinations}, 1-64 of {@code A-Z a-z 0-9 _ -}
 * @param type        {@link #TYPE_HTTP}, or a broker type ({@link #TYPE_KAFKA}, {@link #TYPE_NATS}) with its {@link #broker} settings
 * @param url         where attempts are POSTed, {@code http} or {@code https}; null for a broker
 * @param timeoutMs   the whole attempt, connect included
 * @param maxInFlight attempts to this destination at once
 * @param rate        attempts per second (with burst); empty: unpaced
 * @param signer      the Standard Webhooks signer; empty: attempts are not signed
 * @param headers     what every attempt carries (forwarded, configured and Sluice's own)
 * @param ordering    {@code none} or {@code fifo}
 * @param retry       when to try again and when to give up
 * @param breaker     when to stop trying for a while
 * @param caFile      PEM certificates trusted for {@code https} instead of the JDK's; empty: the JDK's
 * @param broker      a broker type's own settings, read by its transport; empty for {@code http}
 */
public record Destination(
        String name,
        String type,
        URI url,
        long timeoutMs,
        int maxInFlight,
        Optional<Limit> rate,
        Optional<WebhookSigner> signer,
        OutboundHeaders headers,
        Ordering ordering,
        RetryPolicy retry,
        BreakerSettings breaker,
        Optional<Path> caFile,
        Optional<BrokerSettings> broker) {

    /** An HTTP(S) endpoint: attempts are POSTed to {@link #url}. */
    public static final String TYPE_HTTP = "http";
    /** A Kafka topic ({@link KafkaSettings}). */
    public static final String TYPE_KAFKA = "kafka";
    /** NATS JetStream ({@link NatsSettings}). */
    public static final String TYPE_NATS = "nats";
    /** Every {@code type} a destination may have, in the order the docs list them. */
    public static final List<String> TYPES = List.of(TYPE_HTTP, TYPE_KAFKA, TYPE_NATS);
    public static final long DEFAULT_TIMEOUT_MS = 15_000;
    public static final int DEFAULT_MAX_IN_FLIGHT = 32;

    public Destination {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(broker, "broker");
        if (TYPE_HTTP.equals(type)) {
            Objects.requireNonNull(url, "url");
            if (broker.isPresent()) {
                throw new IllegalArgumentException("an http destination has no broker settings");
            }
        } else if (broker.isEmpty()) {
            throw new IllegalArgumentException("a " + type + " destination needs its broker settings");
        }
        Objects.requireNonNull(rate, "rate");
        Objects.requireNonNull(signer, "signer");
        Objects.requireNonNull(headers, "headers");
        Objects.requireNonNull(ordering, "ordering");
        Objects.requireNonNull(retry, "retry");
        Objects.requireNonNull(breaker, "breaker");
        Objects.requireNonNull(caFile, "caFile");
        if (timeoutMs < 1) {
            throw new IllegalArgumentException("timeoutMs must be at least 1, got " + timeoutMs);
        }
        if (maxInFlight < 1) {
            throw new IllegalArgumentException("maxInFlight must be at least 1, got " + maxInFlight);
        }
    }

    /** An {@code http} destination. */
    public Destination(String name, String type, URI url, long timeoutMs, int maxInFlight, Optional<Limit> rate,
                       Optional<WebhookSigner> signer, OutboundHeaders headers, Ordering ordering, RetryPolicy retry,
                       BreakerSettings breaker, Optional<Path> caFile) {
        this(name, type, url, timeoutMs, maxInFlight, rate, signer, headers, ordering, retry, breaker, caFile,
                Optional.empty());
    }

    /** Never prints the signing secret or configured header values. */
    @Override
    public String toString() {
        return "Destination[" + name + ", " + type + " " + (url != null ? url : broker.get()) + ", timeout_ms=" + timeoutMs
                + ", max_in_flight=" + maxInFlight + ", rate=" + rate.map(Limit::toString).orElse("unpaced")
                + ", signed=" + signer.isPresent() + ", ordering=" + ordering.configName() + "]";
    }
}
