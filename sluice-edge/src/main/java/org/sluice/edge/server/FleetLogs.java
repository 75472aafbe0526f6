package org.sluice.edge.server;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.sluice.edge.config.SluiceConfig;
import org.sluice.edge.config.StoreConfig;
import org.sluice.edge.store.kafka.KafkaHookLog;
import org.sluice.edge.store.kafka.KafkaLogSettings;
import org.sluice.edge.store.kafka.ProduceListener;

/**
 * Opens the fleet's log of {@code store.kind: kafka} ({@link KafkaHookLog}) from the
 * configuration, with its two metrics: {@code sluice_log_produce_seconds}, a timer (with
 * histogram buckets) of each record from its hand-over to the producer to the log's
 * acknowledgement, and {@code sluice_log_produce_errors_total}, the records the log did not
 * take (an error, or {@code timeout_ms} passed).
 */
final class FleetLogs {

    private FleetLogs() {
    }

    /** The log's settings: {@code store.kafka}, the node's id and {@code retention.hooks_seconds}. */
    static KafkaLogSettings settings(SluiceConfig config, StoreConfig.Kafka k) {
        return new KafkaLogSettings(config.node().id(), k.bootstrapServers(), k.topicPrefix(), k.partitions(),
                k.replicationFactor(), k.lingerMs(), k.timeoutMs(), k.properties(),
                TimeUnit.SECONDS.toMillis(config.retention().hooksSeconds()));
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
}
