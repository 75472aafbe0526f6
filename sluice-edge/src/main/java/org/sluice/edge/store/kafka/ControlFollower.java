package org.sluice.edge.store.kafka;

import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The thread that reads the control topic: from its beginning when the node opens, until it
 * has reached the end offset it found then (the boot's catch-up, {@link #awaitCaughtUp}), and
 * on from there for as long as the node runs, handing each record to its {@link Sink} in
 * offset order. A consumer without a group (the partition assigned, nothing committed): every
 * node reads everything, and a restart reads it all again.
 *
 * <p>Brokers that do not answer (at boot or later): the thread logs once, tries again every
 * {@value #BACKOFF_MS} ms, and says so when it is back. Only this thread touches the
 * consumer, but for {@link #close}'s wake-up.
 */
final class ControlFollower implements AutoCloseable {

    /** Takes one record of the control topic (value null: a tombstone); called on the follower's thread. */
    @FunctionalInterface
    interface Sink {
        void take(String key, long offset, byte[] value);
    }

    static final long BACKOFF_MS = 500;
    private static final Duration POLL = Duration.ofMillis(100);
    private static final Logger LOG = LoggerFactory.getLogger(ControlFollower.class);

    private final KafkaControlSettings settings;
    private final Sink sink;
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final TopicPartition partition;
    private final CountDownLatch caughtUp = new CountDownLatch(1);
    /** Counted down by {@link #close}: ends the wait between tries. */
    private final CountDownLatch stop = new CountDownLatch(1);
    private final Thread thread;
    private volatile boolean topicReady;
    private volatile boolean closing;

    /**
     * @param topicReady whether the topic was already made sure of (else the thread does it first)
     */
    ControlFollower(KafkaControlSettings settings, String clientId, boolean topicReady, Sink sink) {
        this.settings = settings;
        this.sink = sink;
        this.topicReady = topicReady;
        this.partition = new TopicPartition(settings.topic(), 0);
        Properties p = new Properties();
        p.putAll(settings.properties());
        ClientKeys.consumer(p, settings.bootstrapServers());
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted");
        p.putIfAbsent(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        this.consumer = new KafkaConsumer<>(p);
        this.thread = new Thread(this::follow, "sluice-control-follower");
        this.thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    /** Waits up to {@code millis} for the boot's catch-up; true when the topic has been read to its end. */
    boolean awaitCaughtUp(long millis) throws InterruptedException {
        return caughtUp.await(millis, TimeUnit.MILLISECONDS);
    }

    boolean caughtUp() {
        return caughtUp.getCount() == 0;
    }

    private void follow() {
        long bootEnd = -1;
        boolean assigned = false;
        boolean failing = false;
        long timeoutMs = settings.timeoutMs();
        try {
            while (!closing) {
                try {
                    if (!topicReady) {
                        try (Admin admin = ControlTopic.admin(settings, timeoutMs)) {
                            ControlTopic.ensure(admin, settings,
                                    System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs));
                        }
                        topicReady = true;
                    }
                    if (!assigned) {
                        consumer.assign(List.of(partition));
                        consumer.seekToBeginning(List.of(partition));
                        assigned = true;
                    }
                    if (bootEnd < 0) {
                        bootEnd = consumer.endOffsets(List.of(partition), Duration.ofMillis(timeoutMs)).get(partition);
                    }
                    for (ConsumerRecord<byte[], byte[]> r : consumer.poll(POLL)) {
                        take(r);
                    }
                    if (!caughtUp() && consumer.position(partition, Duration.ofMillis(timeoutMs)) >= bootEnd) {
                        caughtUp.countDown();
                        LOG.info("read the control topic {} to its end (offset {})", settings.topic(), bootEnd);
                    }
                    if (failing) {
                        failing = false;
                        LOG.info("reading the control topic {} again", settings.topic());
                    }
                } catch (WakeupException e) {
                    // close() wakes the consumer; the loop's condition ends it
                } catch (KafkaException | ExecutionException | TimeoutException | IllegalStateException e) {
                    if (closing) {
                        break;
                    }
                    if (!failing) {
                        failing = true;
                        LOG.warn("cannot read the control topic {}; trying again every {} ms: {}", settings.topic(),
                                BACKOFF_MS, e.toString());
                    }
                    if (stop.await(BACKOFF_MS, TimeUnit.MILLISECONDS)) {
                        break;
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // nobody interrupts this thread but to end it
        } finally {
            consumer.close(CloseOptions.timeout(Duration.ofSeconds(1)));
        }
    }

    private void take(ConsumerRecord<byte[], byte[]> r) {
        try {
            sink.take(r.key() == null ? null : ControlView.text(r.key()), r.offset(), r.value());
        } catch (RuntimeException e) { // one record the node cannot use must not stop the following
            LOG.warn("could not apply the record at offset {} of the control topic {}: {}", r.offset(), settings.topic(),
                    e.toString());
        }
    }

    /** Stops the thread and closes the consumer; waits a bounded time. */
    @Override
    public void close() {
        closing = true;
        stop.countDown();
        consumer.wakeup();
        try {
            thread.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
