package org.sluice.edge.delivery;

import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.sluice.edge.store.ControlState;
import org.sluice.edge.store.kafka.KafkaControlSettings;
import org.sluice.edge.store.kafka.KafkaControlState;
import org.sluice.edge.store.rocks.RocksHookStore;

/**
 * {@link StoredFailureRunContract} on the kafka kind, one node: the start is a
 * {@code failing/<destination>} record on the control topic of a real KRaft broker
 * ({@link KafkaBrokers}), read back by the control state opened after the restart. Each test
 * takes its own topic prefix.
 */
class KafkaStoredFailureRunTest extends StoredFailureRunContract {

    private static final AtomicInteger PREFIXES = new AtomicInteger();

    @RegisterExtension
    static final KafkaBrokersExtension kafka = KafkaBrokersExtension.brokers(1);

    private final String prefix = "run" + PREFIXES.incrementAndGet();

    @Override
    ControlState openControl(RocksHookStore store) {
        return KafkaControlState.open(KafkaControlSettings.of(List.of(kafka.bootstrapServers()), prefix, 1, Map.of(), 10_000),
                8_000_000, wall);
    }
}
