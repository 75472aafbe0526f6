package org.sluice.edge.store.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.sluice.edge.store.kafka.KafkaHookLogTest.awaitTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.sluice.edge.delivery.KafkaBrokers;
import org.sluice.edge.store.CommitResult;
import org.sluice.edge.store.HookStoreException;
import org.sluice.edge.store.PendingHook;

/**
 * The log on three real brokers (replication factor 3, {@code min.insync.replicas=2}, as the
 * log makes its topic): one broker down, ingest goes on; two down, nothing is answered 202
 * and nothing of what was refused reaches the log; both back, ingest resumes by itself.
 */
class KafkaHookLogReplicasTest {

    private static PendingHook hook(String body) {
        return new PendingHook("acme", "gh", null, 1L, Map.of(), body.getBytes(StandardCharsets.UTF_8), List.of());
    }

    private static List<PendingHook> batch(String prefix, int n) {
        List<PendingHook> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(hook(prefix + i));
        }
        return out;
    }

    @Test
    void oneBrokerDownIngestGoesOnTwoDownNothingIsAcceptedAndItResumesByItself() throws Exception {
        try (KafkaBrokers brokers = KafkaBrokers.start(3, Map.of())) {
            KafkaLogSettings settings = new KafkaLogSettings("a", List.of(brokers.bootstrapServers()), "rf3", 3, 3, 2,
                    3000, Map.of(), 86_400_000L);
            List<Integer> stoppable = brokers.brokerIds().stream().filter(id -> !brokers.controllerIds().contains(id))
                    .toList();
            List<String> accepted = new ArrayList<>();
            try (KafkaHookLog log = KafkaHookLog.open(settings, System::currentTimeMillis, ProduceListener.NONE);
                 KafkaHookLog manual = KafkaHookLog.open(settings, System::currentTimeMillis, ProduceListener.NONE,
                         false)) {
                assertThat(log.problem()).isNull();
                commitAccepted(log, batch("all-up-", 20), accepted);

                brokers.stopBroker(stoppable.get(0));
                awaitTrue(() -> log.problem() == null, "the log takes writes with two brokers of three");
                commitAccepted(log, batch("one-down-", 20), accepted);

                brokers.stopBroker(stoppable.get(1));
                awaitTrue(() -> log.problem() != null, "the watch sees one in-sync replica, below min.insync.replicas");
                assertThat(log.problem()).contains("in-sync replicas");
                assertThatThrownBy(() -> log.commit(batch("refused-", 5))).isInstanceOf(HookStoreException.class);
                assertThat(manual.commit(batch("refused-produce-", 5))).as("the produce path: not enough replicas")
                        .containsOnly(CommitResult.STORE_UNAVAILABLE);

                brokers.startBrokers(stoppable);
                awaitTrue(() -> log.problem() == null, "the log is back with its brokers");
                commitAccepted(log, batch("back-", 20), accepted);
            }
            List<String> logged = brokers.readAll(List.of("rf3.hooks"), r -> r.size() >= accepted.size()).stream()
                    .map(r -> new String(r.value(), StandardCharsets.UTF_8)).toList();
            assertThat(logged).containsExactlyInAnyOrderElementsOf(accepted);
        }
    }

    private static void commitAccepted(KafkaHookLog log, List<PendingHook> batch, List<String> accepted) {
        assertThat(log.commit(batch)).extracting(CommitResult::status).containsOnly(CommitResult.Status.ACCEPTED);
        batch.forEach(h -> accepted.add(new String(h.body(), StandardCharsets.UTF_8)));
    }
}
