package org.sluice.edge.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.sluice.edge.delivery.KafkaBrokers.header;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.core.Clock;
import org.sluice.edge.delivery.kafka.KafkaTransport;
import org.sluice.edge.delivery.targets.KafkaTarget;
import org.sluice.edge.store.CommitResult;
import org.sluice.edge.store.DeliveryRow;
import org.sluice.edge.store.DeliveryState;
import org.sluice.edge.store.HookStore;
import org.sluice.edge.store.PendingHook;
import org.sluice.edge.store.rocks.RocksHookStore;

/**
 * {@code type: kafka} end to end on one healthy broker: a real RocksDB store, the real
 * dispatcher on the system clock, and a real KRaft broker in this JVM ({@link KafkaBrokers}),
 * one for the class; each test uses its own topics. The cases where brokers fail run on
 * three brokers with {@code min.insync.replicas=2}: {@code server.KafkaClusterDeliveryTest}.
 */
class KafkaDeliveryTest {

    private static final String[][] ORIGINS = {{"acme", "github"}, {"acme", "stripe"}, {"globex", "github"}, {"globex", "shop"}};

    @RegisterExtension
    static final KafkaBrokersExtension kafka = KafkaBrokersExtension.brokers(1);

    @TempDir
    Path dir;
    private HookStore store;
    private Dispatcher dispatcher;

    @AfterEach
    void close() {
        if (dispatcher != null) {
            dispatcher.close();
        }
        if (store != null) {
            store.close();
        }
    }

    // ---------------------------------------------------------------- fixtures

    private static Destination kafkaDestination(String name, String topic, KafkaTarget.Key key, Ordering ordering,
                                                long timeoutMs, RetryPolicy retry, BreakerSettings breaker) {
        KafkaTarget k = new KafkaTarget(List.of(kafka.bootstrapServers()), topic, key, "lz4", 5, Map.of());
        return new Destination(name, k, timeoutMs, 16, Optional.empty(),
                OutboundHeaders.of("destinations." + name, List.of("Content-Type", "X-Event-Type"), Map.of(), null, "test"),
                ordering, retry, breaker);
    }

    private Dispatcher dispatcher(Destination d) {
        store = RocksHookStore.open(dir, RocksHookStore.Options.defaults());
        dispatcher = new Dispatcher(List.of(d), store, Clock.system(), System::currentTimeMillis, new SimpleMeterRegistry(),
                new SplittableRandom(7), (kind, ofKind, wall) -> new KafkaTransport());
        return dispatcher;
    }

    /** Commits {@code n} hooks round-robin over {@link #ORIGINS}, {@code first} numbering the bodies; their ids in order. */
    private List<String> commit(int first, int n, int bodyBytes, String destination) {
        List<String> ids = new ArrayList<>();
        List<PendingHook> batch = new ArrayList<>();
        for (int i = first; i < first + n; i++) {
            String[] origin = ORIGINS[i % ORIGINS.length];
            Map<String, String> headers = new LinkedHashMap<>();
            headers.put("Content-Type", "application/json");
            headers.put("X-Event-Type", "evt-" + (i % 7));
            headers.put("X-Not-Forwarded", "no");
            batch.add(new PendingHook(origin[0], origin[1], null, System.currentTimeMillis(), headers, body(i, bodyBytes),
                    List.of(destination)));
            if (batch.size() == 500 || i == first + n - 1) {
                for (CommitResult r : store.commit(batch)) {
                    assertThat(r.status()).isEqualTo(CommitResult.Status.ACCEPTED);
                    ids.add(r.id());
                }
                batch.clear();
            }
        }
        dispatcher.wake();
        return ids;
    }

    private static byte[] body(int i, int size) {
        String head = "{\"n\":" + i + ",\"pad\":\"";
        StringBuilder b = new StringBuilder(head);
        SplittableRandom letters = new SplittableRandom(i); // random letters: no compression shrinks them much
        while (b.length() < size - 2) {
            b.append((char) ('a' + letters.nextInt(26)));
        }
        return b.append("\"}").toString().getBytes(StandardCharsets.UTF_8);
    }

    private static void await(String what, long seconds, BooleanSupplier done) throws InterruptedException {
        await(what, seconds, done, () -> "");
    }

    private static void await(String what, long seconds, BooleanSupplier done, java.util.function.Supplier<Object> state)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!done.getAsBoolean()) {
            assertThat(System.nanoTime() - deadline).as(() -> what + " within " + seconds + " s " + state.get()).isNegative();
            Thread.sleep(20);
        }
    }

    private long delivered(String destination) {
        return dispatcher.activity().of(destination).orElseThrow().deliveredTotal();
    }

    private static List<String> headerNames(ConsumerRecord<byte[], byte[]> r) {
        List<String> out = new ArrayList<>();
        r.headers().forEach(h -> out.add(h.key()));
        return out;
    }

    // ---------------------------------------------------------------- cases

    @Test
    void tenThousandHooksOverFourSourcesArriveOnceEachWithTheirKeyHeadersAndBytes() throws Exception {
        kafka.createTopic("bulk.acme", 3, 1, Map.of());
        kafka.createTopic("bulk.globex", 3, 1, Map.of());
        Destination d = kafkaDestination("events", "bulk.{tenant}", KafkaTarget.Key.SOURCE, Ordering.NONE, 15_000,
                RetryPolicy.defaults(), BreakerSettings.defaults());
        dispatcher(d).start();
        List<String> ids = commit(0, 10_000, 300, "events");

        await("10,000 deliveries", 90, () -> delivered("events") >= 10_000);
        List<ConsumerRecord<byte[], byte[]>> records = kafka.readAll(List.of("bulk.acme", "bulk.globex"), r -> r.size() >= 10_000);

        assertThat(records).hasSize(10_000);
        Map<String, Integer> indexOf = new HashMap<>();
        for (int i = 0; i < ids.size(); i++) {
            indexOf.put(ids.get(i), i);
        }
        Map<String, Integer> seen = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> r : records) {
            String id = header(r, "webhook-id");
            Integer i = indexOf.get(id);
            assertThat(i).as("a hook that was committed: " + id).isNotNull();
            seen.merge(id, 1, Integer::sum);
            String[] origin = ORIGINS[i % ORIGINS.length];
            StoredHookView expected = new StoredHookView(origin[0], origin[1], body(i, 300));
            assertThat(r.topic()).isEqualTo("bulk." + expected.tenant);
            assertThat(new String(r.key(), StandardCharsets.UTF_8)).isEqualTo(expected.source);
            assertThat(r.value()).isEqualTo(expected.body);
            assertThat(headerNames(r)).containsExactly("webhook-id", "sluice-tenant", "sluice-source", "sluice-received-at",
                    "sluice-attempt", "content-type", "x-event-type");
            assertThat(header(r, "sluice-tenant")).isEqualTo(expected.tenant);
            assertThat(header(r, "sluice-source")).isEqualTo(expected.source);
            assertThat(header(r, "sluice-attempt")).isEqualTo("1");
            assertThat(header(r, "sluice-received-at")).isEqualTo(OutboundHeaders.receivedAt(store.get(id).orElseThrow().receivedAtMillis()));
            assertThat(header(r, "content-type")).isEqualTo("application/json");
            assertThat(header(r, "x-event-type")).isEqualTo("evt-" + (i % 7));
        }
        assertThat(seen).hasSize(10_000);
        assertThat(seen.values()).as("each hook exactly once on a healthy broker").allMatch(n -> n == 1);
    }

    private record StoredHookView(String tenant, String source, byte[] body) {
    }

    @Test
    void aRecordOverTheBrokersMaxSizeIsDeadWithPermanentError() throws Exception {
        kafka.createTopic("small", 1, 1, Map.of("max.message.bytes", "2048"));
        Destination d = kafkaDestination("small", "small", KafkaTarget.Key.TENANT, Ordering.NONE, 15_000,
                RetryPolicy.defaults(), BreakerSettings.defaults());
        dispatcher(d).start();
        String big = commit(0, 1, 8_192, "small").get(0);
        String fits = commit(1, 1, 200, "small").get(0);

        await("both settled", 60, () -> {
            List<DeliveryRow> a = store.deliveries().deliveries(big);
            List<DeliveryRow> b = store.deliveries().deliveries(fits);
            return a.get(0).state() == DeliveryState.DEAD && b.get(0).state() == DeliveryState.DELIVERED;
        }, () -> store.deliveries().deliveries(big) + " " + store.deliveries().deliveries(fits));
        DeliveryRow dead = store.deliveries().deliveries(big).get(0);
        assertThat(dead.deadReason()).isEqualTo("permanent_error");
        assertThat(dead.attempts()).isEqualTo(1);
        assertThat(dead.lastError()).startsWith("kafka MESSAGE_TOO_LARGE");
        List<ConsumerRecord<byte[], byte[]>> records = kafka.readAll(List.of("small"), r -> r.size() >= 1);
        assertThat(records).extracting(r -> header(r, "webhook-id")).containsExactly(fits);
    }

    @Test
    void aMissingTopicIsRetriedAndNamedInLastErrorUntilItExists() throws Exception {
        Destination d = kafkaDestination("later", "later.{source}", KafkaTarget.Key.TENANT, Ordering.NONE, 2_000,
                RetryPolicy.of("destinations.later", 100, 500, 1_000, 3_600, RetryPolicy.DEFAULT_PERMANENT_STATUSES),
                BreakerSettings.of("destinations.later", 1_000, 1_000, 1_000));
        dispatcher(d).start();
        String id = commit(1, 1, 100, "later").get(0); // origin acme/stripe
        await("a failed attempt naming the topic", 60, () -> {
            String error = store.deliveries().deliveries(id).get(0).lastError();
            return error != null && error.contains("later.stripe");
        });
        assertThat(store.deliveries().deliveries(id).get(0).state()).isEqualTo(DeliveryState.PENDING);

        kafka.createTopic("later.stripe", 1, 1, Map.of());
        await("delivered once the topic exists", 60, () -> store.deliveries().deliveries(id).get(0).state() == DeliveryState.DELIVERED);
        assertThat(kafka.readAll(List.of("later.stripe"), r -> !r.isEmpty())).extracting(r -> header(r, "webhook-id")).contains(id);
    }
}
