package org.sluice.edge.server;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.Locale;
import java.util.stream.Stream;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.sluice.edge.config.SluiceConfig;
import org.sluice.edge.config.StoreConfig;
import org.sluice.edge.store.kafka.FollowerFigures;
import org.sluice.edge.store.kafka.FollowerSettings;
import org.sluice.edge.store.kafka.KafkaControlSettings;
import org.sluice.edge.store.kafka.KafkaControlState;
import org.sluice.edge.store.kafka.KafkaFleetDeliveries;
import org.sluice.edge.store.kafka.KafkaHookLog;
import org.sluice.edge.store.kafka.KafkaLogSettings;
import org.sluice.edge.store.kafka.ProduceListener;

/**
 * Builds the parts of {@code store.kind: kafka} from the configuration: the delivery group's
 * settings ({@link FollowerSettings}), the fleet's control state ({@link KafkaControlState}),
 * the emptied working set, and the fleet's log ({@link KafkaHookLog}) with its two metrics: {@code sluice_log_produce_seconds}, a timer (with
 * histogram buckets) of each record from its hand-over to the producer to the log's
 * acknowledgement, and {@code sluice_log_produce_errors_total}, the records the log did not
 * take (an error, or {@code timeout_ms} passed); and the delivery group's figures
 * ({@link #followerMeters}).
 */
final class FleetLogs {

    private FleetLogs() {
    }

    /** The log's settings: {@code store.kafka}, the node's id and {@code retention.hooks_seconds}. */
    static KafkaLogSettings settings(SluiceConfig config, StoreConfig.Kafka k) {
        return new KafkaLogSettings(config.node().id(), k.bootstrapServers(), k.topicPrefix(), k.partitions(),
                k.replicationFactor(), k.lingerMs(), k.timeoutMs(), k.properties(),
                TimeUnit.SECONDS.toMillis(config.retention().hooksSeconds()),
                TimeUnit.SECONDS.toMillis(config.retention().deadSeconds()));
    }

    /** The delivery group's settings: where the log is; the rest at the follower's defaults. */
    static FollowerSettings follower(StoreConfig.Kafka k) {
        return FollowerSettings.of(k.bootstrapServers(), k.topicPrefix(), k.properties());
    }

    /**
     * How long a revoked partition waits for the attempts out on its hooks: the longest
     * {@code timeout_ms} of a {@code fifo} destination, plus a second for the answer's way back.
     */
    static Duration attemptsBound(SluiceConfig config) {
        long longest = 0;
        for (var d : config.destinations().values()) {
            if (d.ordering() == org.sluice.edge.delivery.Ordering.FIFO) {
                longest = Math.max(longest, d.timeoutMs());
            }
        }
        return Duration.ofMillis(longest + 1_000);
    }

    /**
     * The fleet's control state on {@code <prefix>.control}; the boot waits for it to be read
     * to its end at most {@code timeout_ms} (past that the node starts, and it catches up).
     */
    static KafkaControlState openControl(SluiceConfig config, StoreConfig.Kafka k, LongSupplier epochMillis) {
        return KafkaControlState.open(new KafkaControlSettings(k.bootstrapServers(), k.topicPrefix(),
                k.replicationFactor(), k.properties(), k.timeoutMs(), k.timeoutMs()), config.http().maxBodyBytes(),
                epochMillis);
    }

    /**
     * Deletes what the working set at {@code dir} holds from an earlier run (its rows may
     * belong to partitions that have moved since): under {@code store.kind: kafka} the node's
     * store is disposable, and the log holds every hook until its deliveries are finished.
     */
    static void emptyWorkingSet(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot empty the working set at " + dir + ": " + e.getMessage(), e);
        }
    }

    static KafkaHookLog open(SluiceConfig config, StoreConfig.Kafka k, LongSupplier epochMillis, MeterRegistry registry) {
        Timer produced = Timer.builder("sluice.log.produce")
                .description("Time from a hook's record handed to the log's producer to the log's acknowledgement")
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofMillis(1))
                .maximumExpectedValue(Duration.ofMillis(Math.max(2, k.timeoutMs())))
                .register(registry);
        Counter errors = Counter.builder("sluice.log.produce.errors")
                .description("Hook records the log did not acknowledge (an error, or store.kafka.timeout_ms passed)")
                .register(registry);
        return KafkaHookLog.open(settings(config, k), epochMillis, new ProduceListener() {
            @Override
            public void acknowledged(long nanos) {
                produced.record(nanos, TimeUnit.NANOSECONDS);
            }

            @Override
            public void failed() {
                errors.increment();
            }
        });
    }

    /**
     * The fleet's dead letters and redeliveries for the admin API (the boot waits at most
     * {@code timeout_ms} for the dead-letter topic to be indexed), with their meters:
     * {@code sluice_dead_letters_indexed}, the fleet's dead letters this node's index holds,
     * and {@code sluice_dead_letters_unindexed_total}, those that left it at its bound.
     */
    static KafkaFleetDeliveries openFleetDeliveries(KafkaHookLog log, LongSupplier epochMillis, MeterRegistry registry) {
        KafkaFleetDeliveries fleet = KafkaFleetDeliveries.open(log, epochMillis);
        Gauge.builder("sluice.dead.letters.indexed", fleet, KafkaFleetDeliveries::deadLettersIndexed)
                .description("The fleet's dead letters this node's index of the dead-letter topic holds")
                .register(registry);
        FunctionCounter.builder("sluice.dead.letters.unindexed", fleet, KafkaFleetDeliveries::deadLettersUnindexed)
                .description("Dead letters that left this node's index at its bound (still on the topic until its retention)")
                .register(registry);
        return fleet;
    }

    /**
     * The delivery group's meters, polled from the follower's published figures (a scrape
     * never calls the brokers): {@code sluice_log_partitions_owned}, {@code sluice_log_consumer_lag}
     * and {@code sluice_log_held_records} per {@code topic} (the follower's topics, named by
     * {@code topic_prefix}), and {@code sluice_log_rebalances_total} per {@code kind}.
     */
    static void followerMeters(FollowerFigures figures, MeterRegistry registry) {
        for (String topic : figures.topics()) {
            Gauge.builder("sluice.log.partitions.owned", figures, f -> f.partitionsOwned(topic))
                    .description("Partitions of the topic this node's log follower owns")
                    .tag("topic", topic).register(registry);
            Gauge.builder("sluice.log.consumer.lag", figures, f -> {
                long lag = f.consumerLag(topic);
                return lag < 0 ? Double.NaN : lag;
            }).description("Records behind the log's end in the partitions of the topic this node owns")
                    .tag("topic", topic).register(registry);
            Gauge.builder("sluice.log.held.records", figures, f -> f.heldRecords(topic))
                    .description("Records read and not committed past, behind the oldest unfinished hook of each partition owned")
                    .tag("topic", topic).register(registry);
        }
        for (FollowerFigures.Rebalance kind : FollowerFigures.Rebalance.values()) {
            FunctionCounter.builder("sluice.log.rebalances", figures, f -> f.rebalances(kind))
                    .description("Rebalances of the delivery group that assigned, revoked or lost partitions of this node")
                    .tag("kind", kind.name().toLowerCase(Locale.ROOT)).register(registry);
        }
    }
}
