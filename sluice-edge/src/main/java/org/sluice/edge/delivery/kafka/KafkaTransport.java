package org.sluice.edge.delivery.kafka;

import org.sluice.edge.delivery.AttemptOutcome;
import org.sluice.edge.delivery.targets.KafkaTarget;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.UnsupportedForMessageFormatException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.sluice.edge.delivery.AttemptResult;
import org.sluice.edge.delivery.Destination;
import org.sluice.edge.delivery.OutboundHeaders;
import org.sluice.edge.delivery.Transport;
import org.sluice.edge.delivery.broker.AttemptsOut;
import org.sluice.edge.delivery.broker.AttemptsOut.Attempt;
import org.sluice.edge.delivery.broker.BrokerThreads;
import org.sluice.edge.store.StoredHook;
import org.sluice.edge.threads.Threads;

/**
 * The transport of {@code type: kafka}: one idempotent producer per destination.
 *
 * <h2>One attempt</h2>
 * A hook becomes one record: the topic is {@code topic} with {@code {tenant}} and
 * {@code {source}} filled, the key per {@code key}, the value the received body byte for
 * byte, and the headers of {@link OutboundHeaders#forBroker} ({@code webhook-id},
 * {@code sluice-tenant}, {@code sluice-source}, {@code sluice-received-at},
 * {@code sluice-attempt}, then the {@code forward_headers} the hook was received with). The attempt is delivered when the
 * broker acknowledges the record ({@code acks=all}, so every in-sync replica has it):
 * {@link AttemptResult#acknowledged()}, recorded without a status (there is no HTTP answer).
 *
 * <h2>Errors</h2>
 * A refusal no retry can change ({@link #isPermanent}: record or batch too large, topic or
 * cluster authorisation, invalid topic or record) is {@link AttemptResult#permanent()}:
 * dead, {@code permanent_error}. Everything else is {@link AttemptResult.Failed} and goes
 * through the retry policy and the breaker: a broker down, not enough replicas, no leader,
 * a missing topic (Sluice creates none: a broker with {@code auto.create.topics.enable} makes one itself),
 * a timeout, a failed authentication (fixed by a config change, after which the hook is
 * still there). {@code last_error} carries Kafka's error name and its message, cut short.
 *
 * <h2>Time</h2>
 * Every attempt completes within the destination's {@code timeout_ms}: the producer's
 * {@code delivery.timeout.ms} is {@code timeout_ms}, its {@code request.timeout.ms} fits inside it
 * and its {@code max.block.ms} (waiting for a topic's metadata) is half of it. In case the
 * producer has not answered, the sweep of the destination's {@link AttemptsOut} (every tenth of
 * {@code timeout_ms}, {@value AttemptsOut#MAX_SWEEP_MS} ms at most) completes an attempt as
 * {@code timeout} once its deadline has passed: one timer task per destination, not one per
 * attempt. A record still inside the producer then may yet be written: at least once, never lost.
 *
 * <h2>Order</h2>
 * Idempotence (with at most 5 requests in flight per connection) keeps the records of one
 * producer on one partition in send order through the producer's own retries. The
 * dispatcher sends a {@code fifo} destination only the head of each (tenant, source), one
 * attempt at a time, and the config reader requires {@code key} {@code tenant} or
 * {@code source} with {@code fifo}, so a (tenant, source) has one partition. A later hook is
 * sent only after the earlier one is acknowledged, so the first copy of every hook is on
 * the partition in commit order; a retried hook may stand there twice, both copies before
 * the next hook.
 *
 * <h2>Threads</h2>
 * {@code producer.send} may block (waiting for a topic's metadata, or for buffer space),
 * so it never runs on the caller's thread: each destination has one sender thread
 * ({@code sluice-kafka-<name>}), which also creates the producer at its first attempt (a
 * broker name that does not resolve yet is a failed attempt, not a failed boot).
 * {@link #send} only queues the attempt; {@link #flush()} hands the destination's queue to
 * its sender thread in one task, which builds each record and gives it to the producer, so
 * a dispatcher pass of N attempts costs one hand-off, not N, and the records are built off
 * the dispatcher's thread. Answers complete on the producer's I/O thread or on the timer
 * thread ({@code sluice-kafka-timer}). Nothing here takes a lock.
 */
public final class KafkaTransport implements Transport {

    /** The most requests in flight per connection with which idempotence keeps order. */
    static final int MAX_IN_FLIGHT_PER_CONNECTION = 5;
    private static final int MAX_ERROR_CHARS = 200;

    private final Map<String, Publisher> publishers = new ConcurrentHashMap<>();
    private final ScheduledExecutorService timer = BrokerThreads.timer("sluice-kafka-timer");
    private final AtomicBoolean closed = new AtomicBoolean();

    public KafkaTransport() {
    }

    /** Checks the producer settings of {@code destination} (its producer starts at the first attempt). */
    @Override
    public void register(Destination destination) {
        KafkaTarget k = settings(destination);
        Properties props = producerProperties(destination, k);
        try {
            new ProducerConfig(props);
        } catch (KafkaException bad) {
            throw new IllegalArgumentException("destinations." + destination.name() + ".properties: " + bad.getMessage(), bad);
        }
        publishers.computeIfAbsent(destination.name(), n -> {
            Publisher publisher = new Publisher(destination, k, props);
            publisher.out.sweepOn(timer);
            return publisher;
        });
    }

    @Override
    public CompletableFuture<AttemptOutcome> send(Destination destination, StoredHook hook, int attempt, long nowMillis) {
        Publisher publisher = publishers.get(destination.name());
        if (publisher == null) {
            throw new IllegalArgumentException("no destination " + destination.name() + " is registered");
        }
        Attempt<Pending> a = publisher.out.open(new Pending(hook, attempt));
        publisher.queued.add(a);
        if (closed.get()) { // closed, perhaps after close() swept the publisher: nothing will publish it
            a.complete(CLOSED);
        }
        return a.future();
    }

    /** Hands each destination's attempts queued since the last flush to its sender thread, in one task. */
    @Override
    public void flush() {
        for (Publisher publisher : publishers.values()) {
            if (!publisher.queued.isEmpty()) {
                publisher.schedulePublish();
            }
        }
    }

    /** Stops the sender threads and closes the producers (a bounded wait); attempts still out complete as failed. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        for (Publisher publisher : publishers.values()) {
            publisher.sender.shutdownNow();
        }
        for (Publisher publisher : publishers.values()) {
            Threads.awaitStopped(publisher.sender, 5);
            Producer<byte[], byte[]> p = publisher.producer;
            if (p != null) {
                p.close(Duration.ofSeconds(2));
            }
            publisher.out.completeAll(CLOSED);
        }
        timer.shutdownNow();
    }

    // ------------------------------------------------------------------ the record

    /** The record of attempt {@code attempt} of {@code hook} to {@code d}. */
    public static ProducerRecord<byte[], byte[]> record(Destination d, KafkaTarget k, StoredHook hook, int attempt) {
        List<Header> headers = new ArrayList<>();
        d.headers().forBroker(hook, attempt, (name, value) -> headers.add(new RecordHeader(name, value.getBytes(StandardCharsets.UTF_8))));
        return new ProducerRecord<>(k.topicFor(hook.tenant(), hook.source()), null, key(k.key(), hook), hook.body(), headers);
    }

    private static byte[] key(KafkaTarget.Key key, StoredHook hook) {
        String k = switch (key) {
            case TENANT -> hook.tenant() == null || hook.tenant().isEmpty() ? KafkaTarget.NO_TENANT : hook.tenant();
            case SOURCE -> hook.source();
            case DEDUPE_KEY -> hook.dedupeKey();
            case HOOK_ID -> hook.id();
            case NONE -> null;
        };
        return k == null ? null : k.getBytes(StandardCharsets.UTF_8);
    }

    // ------------------------------------------------------------------ the producer

    static Properties producerProperties(Destination d, KafkaTarget k) {
        Properties p = new Properties();
        // defaults that properties may change
        p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, Integer.toString(MAX_IN_FLIGHT_PER_CONNECTION));
        p.put(ProducerConfig.CLIENT_ID_CONFIG, "sluice-" + d.name());
        p.putAll(k.properties());
        // what the delivery contract rests on
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, String.join(",", k.bootstrapServers()));
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, k.compression());
        p.put(ProducerConfig.LINGER_MS_CONFIG, Long.toString(k.lingerMs()));
        long timeout = d.timeoutMs();
        // the producer requires delivery.timeout.ms >= linger.ms + request.timeout.ms
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, Long.toString(Math.min(Integer.MAX_VALUE, timeout)));
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, Long.toString(Math.max(1, Math.min(Integer.MAX_VALUE, timeout - k.lingerMs()))));
        // a topic's metadata is waited for half the attempt only, so a missing topic answers with its name
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, Long.toString(Math.max(1, timeout / 2)));
        return p;
    }

    /**
     * True for the errors no later attempt can change. Authentication is not among them:
     * credentials are fixed in the config, and the hook must still be there then.
     */
    static boolean isPermanent(Throwable e) {
        return e instanceof RecordTooLargeException || e instanceof RecordBatchTooLargeException
                || e instanceof TopicAuthorizationException || e instanceof ClusterAuthorizationException
                || e instanceof InvalidTopicException || e instanceof InvalidRecordException
                || e instanceof UnsupportedForMessageFormatException || e instanceof SerializationException;
    }

    static AttemptOutcome outcome(Throwable e) {
        String error = "kafka " + errorName(e) + (e.getMessage() == null ? "" : ": " + e.getMessage());
        if (error.length() > MAX_ERROR_CHARS) {
            error = error.substring(0, MAX_ERROR_CHARS);
        }
        if (isPermanent(e)) {
            return new AttemptOutcome(AttemptResult.permanent(), error);
        }
        AttemptResult.Failure kind = e instanceof TimeoutException ? AttemptResult.Failure.TIMEOUT
                : e instanceof AuthenticationException ? AttemptResult.Failure.CONNECT
                : AttemptResult.Failure.BROKER;
        return new AttemptOutcome(AttemptResult.failed(kind), error);
    }

    /** Kafka's protocol name of the error ({@code RECORD_TOO_LARGE}), or the class's name when it has none. */
    private static String errorName(Throwable e) {
        Errors known = Errors.forException(e);
        return known == Errors.UNKNOWN_SERVER_ERROR ? e.getClass().getSimpleName() : known.name();
    }

    private static final AttemptOutcome CLOSED = failure(AttemptResult.Failure.CONNECT, "kafka: transport closed");

    private static AttemptOutcome failure(AttemptResult.Failure kind, String error) {
        return new AttemptOutcome(AttemptResult.failed(kind), error);
    }

    private static KafkaTarget settings(Destination d) {
        return d.target(KafkaTarget.class);
    }

    // ------------------------------------------------------------------ one destination

    /** One destination: its producer (made at the first attempt), its sender thread and the attempts out. */
    private final class Publisher {
        final Destination destination;
        final KafkaTarget settings;
        final Properties props;
        final ExecutorService sender;
        /** Attempts sent and not yet completed (an attempt leaves when it completes). */
        final AttemptsOut<Pending> out;
        /** Attempts sent and not yet handed to the producer. */
        final Queue<Attempt<Pending>> queued = new ConcurrentLinkedQueue<>();
        /** A run of {@link #publishQueued} is submitted to {@link #sender} and has not begun. */
        final AtomicBoolean publishScheduled = new AtomicBoolean();
        volatile Producer<byte[], byte[]> producer; // written on the sender thread only

        Publisher(Destination destination, KafkaTarget settings, Properties props) {
            this.destination = destination;
            this.settings = settings;
            this.props = props;
            this.sender = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(),
                    r -> Threads.daemon(r, "sluice-kafka-" + destination.name()));
            this.out = new AttemptsOut<>(destination.timeoutMs(), failure(AttemptResult.Failure.TIMEOUT,
                    "kafka: no acknowledgement within " + destination.timeoutMs() + " ms"));
        }

        /** Submits a run of {@link #publishQueued} to the sender thread unless one is pending. */
        void schedulePublish() {
            if (publishScheduled.compareAndSet(false, true)) {
                try {
                    sender.execute(this::publishQueued);
                } catch (RejectedExecutionException closing) {
                    publishScheduled.set(false);
                    for (Attempt<Pending> a = queued.poll(); a != null; a = queued.poll()) {
                        a.complete(CLOSED);
                    }
                }
            }
        }

        /** On the sender thread: publishes every queued attempt. */
        private void publishQueued() {
            publishScheduled.set(false); // an attempt queued from now on schedules another run
            for (Attempt<Pending> a = queued.poll(); a != null; a = queued.poll()) {
                publish(a);
            }
        }

        /** On the sender thread: builds the attempt's record and hands it to the producer; its callback answers. */
        private void publish(Attempt<Pending> a) {
            if (a.isDone()) {
                return; // timed out while queued: nothing was sent
            }
            if (closed.get()) {
                a.complete(CLOSED);
                return;
            }
            ProducerRecord<byte[], byte[]> record;
            try {
                record = record(destination, settings, a.payload().hook(), a.payload().attempt());
            } catch (RuntimeException e) {
                a.complete(failure(AttemptResult.Failure.PROTOCOL, "kafka: cannot build the record: " + e));
                return;
            }
            Producer<byte[], byte[]> p = producer;
            if (p == null) {
                try {
                    p = new KafkaProducer<>(props);
                    producer = p;
                } catch (KafkaException e) {
                    a.complete(failure(AttemptResult.Failure.CONNECT, "kafka: cannot start the producer: "
                            + String.valueOf(e.getMessage())));
                    return;
                }
            }
            try {
                // the callback answers; the returned future says the same thing again
                var unused = p.send(record, (metadata, e) -> a.complete(e == null ? new AttemptOutcome(AttemptResult.acknowledged(), null) : outcome(e)));
            } catch (RuntimeException e) { // closed, or an error the producer throws rather than reports
                a.complete(outcome(e));
            }
        }
    }

    /** What an attempt out needs to become a record on the sender thread. */
    private record Pending(StoredHook hook, int attempt) {
    }
}
