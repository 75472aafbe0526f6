package org.sluice.edge.store.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.sluice.edge.delivery.KafkaBrokersExtension;
import org.sluice.edge.store.DeadLetterPage;
import org.sluice.edge.store.DeliveryRow;
import org.sluice.edge.store.DeliveryState;
import org.sluice.edge.store.OrderedHeaders;
import org.sluice.edge.store.StoredHook;
import org.sluice.edge.store.UuidV7;
import org.sluice.testkit.Eventually;

/**
 * The index every node keeps of the fleet's dead letters, on a real broker: its bound holds
 * (the oldest hooks leave first, and are counted), a tombstone removes a dead letter, and
 * pages follow the admin API's rules (id order, never ending inside a hook).
 */
class DeadLetterIndexTest {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final AtomicInteger TOPICS = new AtomicInteger();

    @RegisterExtension
    static final KafkaBrokersExtension brokers = KafkaBrokersExtension.brokers(1);

    private static LogClients clients;
    private static KafkaProducer<byte[], byte[]> producer;

    private final UuidV7 ids = new UuidV7();
    private final List<AutoCloseable> closing = new ArrayList<>();
    private String topic;

    @BeforeAll
    static void openClients() {
        clients = new LogClients(new KafkaLogSettings("test", List.of(brokers.bootstrapServers()), "unused", 2, 1, 1,
                5_000, Map.of(), TimeUnit.DAYS.toMillis(1)));
        Map<String, Object> p = new HashMap<>();
        ClientKeys.producer(p, List.of(brokers.bootstrapServers()));
        producer = new KafkaProducer<>(p);
    }

    @AfterAll
    static void closeClients() {
        producer.close();
        clients.close();
    }

    @BeforeEach
    void makeTopic() throws Exception {
        topic = "dead" + TOPICS.incrementAndGet();
        brokers.createTopic(topic, 3, 1, Map.of("cleanup.policy", "compact,delete"));
    }

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : closing) {
            c.close();
        }
    }

    private DeadLetterIndex index(int max) throws InterruptedException {
        DeadLetterIndex index = new DeadLetterIndex(topic, clients::consumer, max, TimeUnit.DAYS.toMillis(1),
                System::currentTimeMillis);
        closing.add(index);
        assertThat(index.awaitCaughtUp(WAIT.toMillis())).as("read to its end").isTrue();
        return index;
    }

    /** Writes the dead letter of a new hook to each of {@code destinations}; returns the hook's id. */
    private String dead(String... destinations) throws Exception {
        return deadAt(System.currentTimeMillis(), destinations);
    }

    /** As {@link #dead}, the hook's id stamped at {@code millis}. */
    private String deadAt(long millis, String... destinations) throws Exception {
        long now = System.currentTimeMillis();
        String id = ids.next(millis).toString();
        StoredHook hook = new StoredHook(id, "t", "s", null, now, OrderedHeaders.adopt(new String[0], 0),
                "{}".getBytes(StandardCharsets.UTF_8));
        for (String d : destinations) {
            DeliveryRow row = new DeliveryRow(id, d, DeliveryState.DEAD, 1, now, now, now, 410, null, null,
                    "permanent_status", now);
            producer.send(DeadLetters.record(topic, hook, row)).get();
        }
        return id;
    }

    private static List<String> keys(DeadLetterPage page) {
        return page.rows().stream().map(r -> r.hookId() + "/" + r.destination()).toList();
    }

    @Test
    void atItsBoundTheIndexDropsTheOldestHooksAndCountsThem() throws Exception {
        List<String> hooks = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            hooks.add(dead("app"));
        }
        DeadLetterIndex index = index(5);

        assertThat(index.size()).isEqualTo(5);
        assertThat(index.unindexed()).isEqualTo(3);
        assertThat(index.count("app")).isEqualTo(5);
        assertThat(index.page(null, null, 100).rows()).extracting(DeliveryRow::hookId)
                .containsExactlyElementsOf(hooks.subList(3, 8));

        String later = dead("app"); // read while following: the bound still holds
        Eventually.until("the newest dead letter indexed", WAIT, () -> !index.of(later).isEmpty());
        assertThat(index.size()).isEqualTo(5);
        assertThat(index.unindexed()).isEqualTo(4);
    }

    /** What a {@code dead_only} replay walks: the dead letters to one destination of the hooks stamped in a range. */
    @Test
    void theDeadLettersOfARangeAreThoseOfTheHooksStampedInIt() throws Exception {
        // ten milliseconds before the ids' first eight hex digits change: the range spans that change
        long t = ((System.currentTimeMillis() - 300_000) & ~0xffffL) - 10;
        String early = deadAt(t - 1, "app");
        String first = deadAt(t, "app", "crm");
        String second = deadAt(t + 65_535, "app");
        String crmOnly = deadAt(t + 65_536, "crm");
        String late = deadAt(t + 70_000, "app");
        DeadLetterIndex index = index(DeadLetterIndex.DEFAULT_MAX_ENTRIES);

        assertThat(DeadLetterIndex.timePrefix(t)).as("a UUIDv7's canonical text starts with its millisecond")
                .isEqualTo(first.substring(0, 13));
        assertThat(index.hooksDeadIn("app", t, t + 70_000)).containsExactly(first, second);
        assertThat(index.hooksDeadIn("crm", t, t + 70_000)).containsExactly(first, crmOnly);
        assertThat(index.hooksDeadIn("app", t - 1, t + 70_001)).containsExactly(early, first, second, late);
        assertThat(index.hooksDeadIn("app", t + 1, t + 65_535)).isEmpty();
        assertThat(index.isDead(first, "crm")).isTrue();
        assertThat(index.isDead(crmOnly, "app")).isFalse();
    }

    /** What {@code GET /v1/hooks/{id}} shows of a dead letter on a node that does not hold the hook. */
    @Test
    void aDeadLetterWithoutAnAnswerKeepsItsLastErrorAndAnOlderRecordReadsAsNone() throws Exception {
        long now = System.currentTimeMillis();
        String timedOut = ids.next(now).toString();
        String older = ids.next(now).toString();
        for (String id : List.of(timedOut, older)) {
            StoredHook hook = new StoredHook(id, "t", "s", null, now, OrderedHeaders.adopt(new String[0], 0),
                    "{}".getBytes(StandardCharsets.UTF_8));
            DeliveryRow row = new DeliveryRow(id, "app", DeliveryState.DEAD, 20, now - 5, now - 9_000, now, null, "timeout",
                    null, "max_attempts", now);
            ProducerRecord<byte[], byte[]> r = DeadLetters.record(topic, hook, row);
            if (id.equals(older)) {
                r.headers().remove(DeadLetters.LAST_ERROR); // as written before the record carried it
            }
            producer.send(r).get();
        }
        DeadLetterIndex index = index(DeadLetterIndex.DEFAULT_MAX_ENTRIES);

        List<DeadLetterIndex.Entry> entries = index.of(timedOut);
        assertThat(entries).hasSize(1);
        DeliveryRow shown = entries.get(0).row();
        assertThat(shown.destination()).isEqualTo("app");
        assertThat(shown.state()).isEqualTo(DeliveryState.DEAD);
        assertThat(shown.attempts()).isEqualTo(20);
        assertThat(shown.lastStatus()).isNull();
        assertThat(shown.lastError()).isEqualTo("timeout");
        assertThat(shown.deadReason()).isEqualTo("max_attempts");
        assertThat(shown.deadAtMillis()).isEqualTo(now);
        assertThat(shown.updatedAtMillis()).as("a dead letter last changed when it died").isEqualTo(now);
        assertThat(index.of(older).get(0).row().lastError()).isNull();
    }

    @Test
    void aTombstoneRemovesADeadLetterAndAPageNeverEndsInsideAHook() throws Exception {
        String a = dead("app", "crm");
        String b = dead("app");
        String c = dead("crm");
        DeadLetterIndex index = index(DeadLetterIndex.DEFAULT_MAX_ENTRIES);

        DeadLetterPage first = index.page(null, null, 1);
        assertThat(keys(first)).containsExactly(a + "/app", a + "/crm");
        assertThat(first.next()).isEqualTo(a);
        DeadLetterPage second = index.page(null, a, 1);
        assertThat(keys(second)).containsExactly(b + "/app");
        assertThat(second.next()).isEqualTo(b);
        DeadLetterPage last = index.page(null, b, 1);
        assertThat(keys(last)).containsExactly(c + "/crm");
        assertThat(last.next()).isNull();
        assertThat(keys(index.page("crm", null, 10))).containsExactly(a + "/crm", c + "/crm");
        DeliveryRow row = first.rows().get(0);
        assertThat(row.deadReason()).isEqualTo("permanent_status");
        assertThat(row.lastStatus()).isEqualTo(410);
        assertThat(row.attempts()).isEqualTo(1);

        producer.send(new ProducerRecord<>(topic, DeadLetters.key(a, "crm"), null)).get();
        Eventually.until("the tombstone read", WAIT, () -> index.count("crm") == 1);
        assertThat(keys(index.page(null, null, 10))).containsExactly(a + "/app", b + "/app", c + "/crm");
    }
}
