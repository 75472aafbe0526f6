package org.sluice.edge.store.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.core.Clock;
import org.sluice.edge.delivery.BreakerSettings;
import org.sluice.edge.delivery.Destination;
import org.sluice.edge.delivery.Dispatcher;
import org.sluice.edge.delivery.http.HttpDeliveryClient;
import org.sluice.edge.delivery.KafkaBrokers;
import org.sluice.edge.delivery.KafkaBrokersExtension;
import org.sluice.edge.delivery.Ordering;
import org.sluice.edge.delivery.OutboundHeaders;
import org.sluice.edge.delivery.RetryPolicy;
import org.sluice.edge.delivery.targets.HttpTarget;
import org.sluice.edge.store.PendingHook;
import org.sluice.edge.store.StoredHook;
import org.sluice.edge.store.DeliveryState;
import org.sluice.edge.store.DeliveryRow;
import org.sluice.edge.store.rocks.RocksHookStore;
import org.sluice.testkit.ChildJvm;
import org.sluice.testkit.Eventually;
import org.sluice.testkit.HookReceiver;
import org.sluice.testkit.HookReceiver.Answer;
import org.sluice.testkit.HookReceiver.Received;

/**
 * The delivery side of the fleet's log with real parts: a KRaft broker in the test JVM,
 * followers in the delivery group each with a RocksDB working set on a temp dir and a real
 * dispatcher, and a real HTTP receiver. Hooks are put on the hooks topic as the ingest
 * side writes them ({@link HookRecords#record}, a plain producer).
 */
class LogFollowerTest {

    private static final int PARTITIONS = 4;
    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final AtomicInteger PREFIXES = new AtomicInteger();

    @RegisterExtension
    static final KafkaBrokersExtension brokers = KafkaBrokersExtension.brokers(1, Map.of("group.min.session.timeout.ms", "1000"));

    private static KafkaProducer<byte[], byte[]> producer;

    @TempDir
    Path dir;
    private String prefix;
    private final List<AutoCloseable> closing = new ArrayList<>();

    @BeforeAll
    static void openProducer() {
        Map<String, Object> p = new HashMap<>();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, brokers.bootstrapServers());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        producer = new KafkaProducer<>(p);
    }

    @AfterAll
    static void closeProducer() {
        producer.close();
    }

    @BeforeEach
    void topic() throws Exception {
        prefix = "t" + PREFIXES.incrementAndGet();
        brokers.createTopic(prefix + ".hooks", PARTITIONS, 1, Map.of());
        brokers.createTopic(prefix + ".retry", PARTITIONS, 1, Map.of());
        brokers.createTopic(prefix + ".dead", PARTITIONS, 1, Map.of());
    }

    @AfterEach
    void closeAll() throws Exception {
        for (int i = closing.size() - 1; i >= 0; i--) {
            closing.get(i).close();
        }
    }

    // ---------------------------------------------------------------- fixtures

    /** One node's delivery side: its working set, its dispatcher and its follower. */
    private final class Node implements AutoCloseable {
        final RocksHookStore store;
        final Dispatcher dispatcher;
        final LogFollower follower;
        private boolean closed;

        Node(String name, List<Destination> destinations, Duration session) {
            this(name, destinations, session, FollowerSettings.DEFAULT_RETRY_MOVE_AFTER);
        }

        Node(String name, List<Destination> destinations, Duration session, Duration moveAfter) {
            this(name, destinations, session, moveAfter, FollowerSettings.DEFAULT_MAX_TRACKED);
        }

        Node(String name, List<Destination> destinations, Duration session, Duration moveAfter, int maxTracked) {
            this(name, destinations, session, moveAfter, maxTracked, Duration.ZERO);
        }

        Node(String name, List<Destination> destinations, Duration session, Duration moveAfter, int maxTracked,
             Duration carryAfter) {
            this(name, destinations, session, moveAfter, maxTracked, carryAfter, Duration.ofMillis(200));
        }

        Node(String name, List<Destination> destinations, Duration session, Duration moveAfter, int maxTracked,
             Duration carryAfter, Duration commitInterval) {
            store = RocksHookStore.open(dir.resolve(name));
            dispatcher = new Dispatcher(destinations, store, Clock.system(), System::currentTimeMillis,
                    new SimpleMeterRegistry(), new SplittableRandom(7),
                (kind, ofKind, w) -> HttpDeliveryClient.forDestinations(ofKind, org.sluice.edge.netio.TestTransport.io(), null, w));
            Set<String> fifo = new HashSet<>();
            destinations.stream().filter(d -> d.ordering() == Ordering.FIFO).forEach(d -> fifo.add(d.name()));
            follower = new LogFollower(FollowerSettings.of(List.of(brokers.bootstrapServers()), prefix, Map.of())
                    .withSessionTimeout(session).withCommitInterval(commitInterval).withRetryMoveAfter(moveAfter)
                    .withMaxTrackedPerPartition(maxTracked).withCarryAfter(carryAfter),
                    store, Clock.system(), System::currentTimeMillis, fifo);
            closing.add(this);
        }

        Node start() {
            dispatcher.start();
            follower.start();
            return this;
        }

        /** As a killed node: nothing committed, nothing forgotten, the group left by the session's end. */
        void kill() {
            follower.abandon();
            close();
        }

        @Override
        public void close() {
            if (closed) {
                return;
            }
            closed = true;
            dispatcher.close();
            follower.close();
            store.close();
        }
    }

    private HookReceiver receiver() {
        HookReceiver r = HookReceiver.start();
        closing.add(r);
        return r;
    }

    private static Destination http(String name, URI url, RetryPolicy retry, BreakerSettings breaker) {
        return http(name, url, retry, breaker, Ordering.NONE);
    }

    private static Destination http(String name, URI url, RetryPolicy retry, BreakerSettings breaker, Ordering ordering) {
        return new Destination(name, new HttpTarget(url), 10_000, 8, Optional.empty(),
                OutboundHeaders.of("destinations." + name, List.of(), Map.of(), null, "0.1.0-test"),
                ordering, retry, breaker);
    }

    private static Destination http(String name, URI url) {
        return http(name, url, RetryPolicy.defaults(), BreakerSettings.defaults());
    }

    /** A destination retrying every 100 to 500 ms, whose breaker opens for 100 to 500 ms after 1,000 failures. */
    static Destination quickHttp(String name, URI url) {
        return http(name, url, RetryPolicy.of("destinations." + name, 100, 500, 1_000, 3_600,
                RetryPolicy.DEFAULT_PERMANENT_STATUSES), new BreakerSettings(1_000, 100, 500));
    }

    /** A fresh UUIDv7 for now, as the ingest side makes them. */
    private static UUID newId() {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        return new UUID((System.currentTimeMillis() << 16) | (0x7L << 12) | r.nextInt(1 << 12),
                (0x2L << 62) | (r.nextLong() & ((1L << 62) - 1)));
    }

    /** Puts a hook of ({@code tenant}, {@code source}) on the hooks topic, acknowledged; returns its id and where it landed. */
    private Logged produce(String tenant, String source, String body, String... destinations) throws Exception {
        UUID id = newId();
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Content-Type", "application/json");
        PendingHook hook = new PendingHook(tenant, source, null, System.currentTimeMillis(), headers,
                body.getBytes(StandardCharsets.UTF_8), List.of(destinations));
        RecordMetadata m = producer.send(HookRecords.record(prefix + ".hooks", id, hook)).get(30, TimeUnit.SECONDS);
        return new Logged(id.toString(), m.partition(), m.offset());
    }

    private record Logged(String id, int partition, long offset) {
    }

    /** {@code n} hooks over eight (tenant, source) keys, to {@code destination}. */
    private List<Logged> produceMany(int n, String destination) throws Exception {
        List<Logged> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(produce("tenant" + (i % 2), "source" + (i % 4), "{\"n\":" + i + "}", destination));
        }
        return out;
    }

    /** Offset after the last record of each partition, as produced. */
    private static Map<Integer, Long> ends(List<Logged> logged) {
        Map<Integer, Long> out = new HashMap<>();
        for (Logged l : logged) {
            out.merge(l.partition(), l.offset() + 1, Math::max);
        }
        return out;
    }

    private static boolean committedTo(Map<Integer, Long> ends, Node... nodes) {
        Map<Integer, Long> seen = new HashMap<>();
        for (Node n : nodes) {
            seen.putAll(n.follower.committedOffsets());
        }
        return ends.entrySet().stream().allMatch(e -> seen.getOrDefault(e.getKey(), -1L) >= e.getValue());
    }

    private static Map<String, Integer> copiesById(List<Received> received) {
        Map<String, Integer> out = new HashMap<>();
        for (Received r : received) {
            out.merge(r.header(OutboundHeaders.WEBHOOK_ID), 1, Integer::sum);
        }
        return out;
    }

    private static boolean splitBetween(Node a, Node b) {
        Set<Integer> pa = a.follower.ownedPartitions();
        Set<Integer> pb = b.follower.ownedPartitions();
        Set<Integer> all = new HashSet<>(pa);
        all.addAll(pb);
        return !pa.isEmpty() && !pb.isEmpty() && all.size() == PARTITIONS && pa.size() + pb.size() == PARTITIONS;
    }

    // ---------------------------------------------------------------- tests

    @Test
    void hooksOnTheLogAreDeliveredExactlyOnceByOneFollower() throws Exception {
        HookReceiver receiver = receiver();
        Node node = new Node("a", List.of(http("crm", receiver.uri("/crm"))), Duration.ofSeconds(6)).start();
        Eventually.until("the follower owns every partition", WAIT, () -> node.follower.ownedPartitions().size() == PARTITIONS);

        List<Logged> logged = produceMany(40, "crm");

        Eventually.until("every offset committed", WAIT, () -> committedTo(ends(logged), node));
        Map<String, Integer> copies = copiesById(receiver.received());
        assertThat(copies.keySet()).containsExactlyInAnyOrderElementsOf(logged.stream().map(Logged::id).toList());
        assertThat(copies.values()).containsOnly(1);
        assertThat(receiver.received()).allSatisfy(r -> assertThat(r.path()).isEqualTo("/crm"));
    }

    @Test
    void twoFollowersDeliverEveryHookOnceBetweenThem() throws Exception {
        HookReceiver receiver = receiver();
        Node a = new Node("a", List.of(http("crm", receiver.uri("/crm"))), Duration.ofSeconds(6)).start();
        Node b = new Node("b", List.of(http("crm", receiver.uri("/crm"))), Duration.ofSeconds(6)).start();
        Eventually.until("the partitions split between the two", WAIT, () -> splitBetween(a, b));

        List<Logged> logged = produceMany(200, "crm");

        Eventually.until("every offset committed", WAIT, () -> committedTo(ends(logged), a, b));
        Map<String, Integer> copies = copiesById(receiver.received());
        assertThat(copies.keySet()).containsExactlyInAnyOrderElementsOf(logged.stream().map(Logged::id).toList());
        assertThat(copies.values()).containsOnly(1);
        assertThat(a.follower.hooksTaken() + b.follower.hooksTaken()).isEqualTo(200);
    }

    @Test
    void aFollowerThatDiesLeavesItsShareToTheOther() throws Exception {
        HookReceiver receiver = receiver().defaultAnswer(Answer.status(503));
        Node a = new Node("a", List.of(quickHttp("crm", receiver.uri("/crm"))), Duration.ofSeconds(3)).start();
        Node b = new Node("b", List.of(quickHttp("crm", receiver.uri("/crm"))), Duration.ofSeconds(3)).start();
        Eventually.until("the partitions split between the two", WAIT, () -> splitBetween(a, b));
        Set<Integer> ofA = a.follower.ownedPartitions();

        List<Logged> logged = produceMany(100, "crm");
        Set<String> ids = new HashSet<>(logged.stream().map(Logged::id).toList());
        Eventually.until("every hook attempted and refused", WAIT,
                () -> copiesById(receiver.received()).keySet().containsAll(ids));
        a.kill();
        int before = receiver.requestCount();
        receiver.defaultAnswer(Answer.status(200));

        // A never had a 200, so it repeated nothing: the only extra copies are the attempts B
        // had out when the answer changed, at most its max_in_flight
        survivorDeliversEveryHook(receiver, before, b, logged, 8);
        assertThat(logged.stream().filter(l -> ofA.contains(l.partition()))).isNotEmpty();
    }

    @Test
    void theCommittedOffsetNeverPassesAnUnfinishedHook() throws Exception {
        HookReceiver receiver = receiver();
        Node node = new Node("a", List.of(http("crm", receiver.uri("/crm")), http("audit", receiver.uri("/audit"))),
                Duration.ofSeconds(6));
        node.store.deliveries().setPaused("audit", true, System.currentTimeMillis());
        node.start();
        Eventually.until("the follower owns every partition", WAIT, () -> node.follower.ownedPartitions().size() == PARTITIONS);

        List<Logged> logged = new ArrayList<>();
        for (int i = 0; i < 10; i++) { // one (tenant, source): one partition, in order
            logged.add(i == 4 ? produce("acme", "github", "{\"n\":4}", "crm", "audit")
                    : produce("acme", "github", "{\"n\":" + i + "}", "crm"));
        }
        int partition = logged.get(0).partition();
        Eventually.until("every hook delivered to crm", WAIT, () -> receiver.requestCount() == 10);
        long passes = node.follower.commitPasses();
        Eventually.until("two commit passes after the last delivery", WAIT, () -> node.follower.commitPasses() >= passes + 2);

        assertThat(node.follower.committedOffsets().get(partition)).isEqualTo(logged.get(4).offset());

        node.store.deliveries().setPaused("audit", false, System.currentTimeMillis());
        node.dispatcher.pausedChanged("audit");
        Eventually.until("every offset committed", WAIT, () -> committedTo(ends(logged), node));
        assertThat(receiver.received()).filteredOn(r -> r.path().equals("/audit")).hasSize(1);
        assertThat(receiver.requestCount()).isEqualTo(11);
    }

    @Test
    void aHookWaitingForADistantRetryMovesToTheRetryTopicAndItsPartitionCommitsPastIt() throws Exception {
        HookReceiver receiver = receiver().plan(Answer.status(503));
        RetryPolicy slow = RetryPolicy.of("destinations.crm", 6_000, 6_000, 10, 3_600, RetryPolicy.DEFAULT_PERMANENT_STATUSES);
        Node node = new Node("a", List.of(http("crm", receiver.uri("/crm"), slow, BreakerSettings.defaults())),
                Duration.ofSeconds(6), Duration.ofSeconds(1)).start();
        Eventually.until("the follower owns every partition", WAIT, () -> node.follower.ownedPartitions().size() == PARTITIONS);

        Logged refused = produce("acme", "github", "{\"n\":0}", "crm");
        receiver.awaitRequests(1, WAIT); // refused (503): its next attempt is 3 to 6 s away
        Logged next = produce("acme", "github", "{\"n\":1}", "crm");

        Eventually.until("the refused hook moved and its partition committed past both", WAIT,
                () -> node.follower.hooksMoved() == 1
                        && node.follower.committedOffsets().getOrDefault(refused.partition(), -1L) == next.offset() + 1);
        Eventually.until("the refused hook delivered from the retry topic", WAIT, () -> receiver.requestCount() == 3);
        List<Received> copies = receiver.received().stream()
                .filter(r -> r.header(OutboundHeaders.WEBHOOK_ID).equals(refused.id())).toList();
        assertThat(copies).extracting(r -> r.header(OutboundHeaders.SLUICE_ATTEMPT)).containsExactly("1", "2");
        Eventually.until("the retry partition committed past it", WAIT,
                () -> node.follower.committedRetryOffsets().values().stream().mapToLong(Long::longValue).sum() == 1);
        assertThat(receiver.requestCount()).isEqualTo(3);
    }

    @Test
    void aPartitionHoldingItsBoundBehindAnUnfinishedHookStopsBeingReadUntilItFinishes() throws Exception {
        HookReceiver receiver = receiver();
        Node node = new Node("a", List.of(http("crm", receiver.uri("/crm")), http("audit", receiver.uri("/audit"))),
                Duration.ofSeconds(6), FollowerSettings.DEFAULT_RETRY_MOVE_AFTER, 3);
        node.store.deliveries().setPaused("audit", true, System.currentTimeMillis());
        node.start();
        Eventually.until("the follower owns every partition", WAIT, () -> node.follower.ownedPartitions().size() == PARTITIONS);

        List<Logged> logged = new ArrayList<>();
        logged.add(produce("acme", "github", "{\"n\":0}", "crm", "audit")); // held: audit is paused
        Eventually.until("the first hook taken", WAIT, () -> node.follower.hooksTaken() == 1);
        for (int i = 1; i < 3; i++) {
            logged.add(produce("acme", "github", "{\"n\":" + i + "}", "crm"));
        }
        Eventually.until("three hooks held", WAIT, () -> node.follower.hooksTaken() == 3);
        long passes = node.follower.commitPasses();
        Eventually.until("two commit passes while three are held", WAIT, () -> node.follower.commitPasses() >= passes + 2);
        for (int i = 3; i < 10; i++) {
            logged.add(produce("acme", "github", "{\"n\":" + i + "}", "crm"));
        }
        long later = node.follower.commitPasses();
        Eventually.until("two commit passes after the rest was logged", WAIT, () -> node.follower.commitPasses() >= later + 2);

        assertThat(node.follower.hooksTaken()).isEqualTo(3); // the partition is paused at its bound
        assertThat(node.follower.committedOffsets().get(logged.get(0).partition())).isEqualTo(logged.get(0).offset());

        node.store.deliveries().setPaused("audit", false, System.currentTimeMillis());
        node.dispatcher.pausedChanged("audit");
        Eventually.until("every offset committed", WAIT, () -> committedTo(ends(logged), node));
        assertThat(node.follower.hooksTaken()).isEqualTo(10);
        assertThat(copiesById(receiver.received()).values()).containsOnly(1, 2); // the first hook went to crm and audit
        assertThat(receiver.requestCount()).isEqualTo(11);
    }

    @Test
    void aPartitionPausedAtItsBoundReadsOnAsItsHooksAreDeliveredWithoutWaitingForACommitPass() throws Exception {
        HookReceiver receiver = receiver();
        Node node = new Node("a", List.of(http("crm", receiver.uri("/crm"))), Duration.ofSeconds(6),
                FollowerSettings.DEFAULT_RETRY_MOVE_AFTER, 4, Duration.ZERO, Duration.ofHours(1)); // no pass runs
        node.start();
        Eventually.until("the follower owns every partition", WAIT, () -> node.follower.ownedPartitions().size() == PARTITIONS);

        List<Logged> logged = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            logged.add(produce("acme", "github", "{\"n\":" + i + "}", "crm"));
        }
        Eventually.until("the first four hooks taken: the partition's bound", WAIT, () -> node.follower.hooksTaken() == 4);
        Eventually.until("the first four delivered", WAIT, () -> receiver.requestCount() == 4);
        for (int i = 4; i < 40; i++) {
            logged.add(produce("acme", "github", "{\"n\":" + i + "}", "crm"));
        }
        // one key, so one partition, read on only because its delivered head is dropped between passes
        Eventually.until("every hook delivered", WAIT, () -> receiver.requestCount() >= 40);
        assertThat(logged.stream().map(Logged::partition).distinct()).hasSize(1);
        assertThat(node.follower.commitPasses()).isZero();
        assertThat(node.follower.hooksTaken()).isEqualTo(40);
        assertThat(copiesById(receiver.received())).hasSize(40).allSatisfy((id, n) -> assertThat(n).isEqualTo(1));
    }

    @Test
    void aDeadLetterIsOnTheDeadLetterTopicBeforeItsPartitionCommitsPastItAndItsRedeliveryIsDelivered() throws Exception {
        HookReceiver receiver = receiver().plan(Answer.status(410));
        Node node = new Node("a", List.of(http("crm", receiver.uri("/crm"))), Duration.ofSeconds(6)).start();
        Eventually.until("the follower owns every partition", WAIT, () -> node.follower.ownedPartitions().size() == PARTITIONS);

        Logged gone = produce("acme", "github", "{\"n\":0}", "crm");

        Eventually.until("its partition committed past it", WAIT,
                () -> node.follower.committedOffsets().getOrDefault(gone.partition(), -1L) == gone.offset() + 1);
        List<ConsumerRecord<byte[], byte[]>> dead =
                brokers.readAll(List.of(prefix + ".dead"), l -> !l.isEmpty());
        assertThat(dead).hasSize(1);
        HookRecords.LoggedHook letter = HookRecords.read(dead.get(0));
        assertThat(letter.hook().id()).isEqualTo(gone.id());
        assertThat(letter.hook().body()).isEqualTo("{\"n\":0}".getBytes(StandardCharsets.UTF_8));
        assertThat(letter.destinations()).containsExactly("crm");
        assertThat(new String(dead.get(0).key(), StandardCharsets.UTF_8)).as("compacted by hook and destination")
                .isEqualTo(gone.id() + "/crm");
        assertThat(KafkaBrokers.header(dead.get(0), DeadLetters.REASON)).isEqualTo("permanent_status");
        assertThat(KafkaBrokers.header(dead.get(0), DeadLetters.LAST_STATUS)).isEqualTo("410");
        assertThat(KafkaBrokers.header(dead.get(0), DeadLetters.ATTEMPTS)).isEqualTo("1");

        // a redelivery made from the admin API is a retry record of the hook the node still holds
        // dead: it is taken as a new hook and delivered, not passed over as a copy of the one held
        StoredHook held = node.store.get(gone.id()).orElseThrow();
        long now = System.currentTimeMillis();
        DeliveryRow again = new DeliveryRow(gone.id(), "crm", DeliveryState.PENDING, 0, now, now, now, null, null, null,
                null, null);
        producer.send(RetryRecords.record(prefix + ".retry", held, List.of(again), now)).get(30, TimeUnit.SECONDS);

        Eventually.until("delivered again", WAIT, () -> receiver.requestCount() == 2);
        Eventually.until("its delivery finished", WAIT, () -> node.store.deliveries().deliveries(gone.id()).stream()
                .allMatch(r -> r.state() == DeliveryState.DELIVERED));
    }

    /**
     * Hooks held on the hooks topic by a paused destination are carried forward to the retry
     * topic once older than the carry age: the hooks partition commits past them, so the
     * hooks topic's retention may delete their records (done here by hand) and a node that
     * starts with an empty working set still delivers each of them, once, when resumed.
     */
    @Test
    void heldHooksOlderThanTheCarryAgeOutliveTheirHooksRecords() throws Exception {
        HookReceiver receiver = receiver();
        List<Destination> destinations = List.of(http("crm", receiver.uri("/crm")), http("audit", receiver.uri("/audit")));
        Node a = carryingWhilePaused(destinations, "audit");

        List<Logged> logged = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            logged.add(produce("tenant" + (i % 2), "source" + (i % 3), "{\"n\":" + i + "}", "crm", "audit"));
        }

        Eventually.until("every hook carried forward and the hooks topic committed past it", WAIT,
                () -> a.follower.hooksCarried() >= logged.size() && committedTo(ends(logged), a));
        List<ConsumerRecord<byte[], byte[]>> carried = brokers.readAll(List.of(prefix + ".retry"), l -> l.size() >= logged.size());
        assertThat(carried.stream().map(r -> HookRecords.read(r).hook().id()).distinct()) // carried again after 2 s
                .containsExactlyInAnyOrderElementsOf(logged.stream().map(Logged::id).toList());
        assertThat(carried).allSatisfy(r -> assertThat(HookRecords.read(r).destinations()).containsExactly("audit"));
        assertThat(carried).as("stamped when carried: the retry topic's retention counts from then")
                .allSatisfy(r -> assertThat(r.timestamp())
                        .isGreaterThanOrEqualTo(HookRecords.idMillis(UUID.fromString(HookRecords.read(r).hook().id())) + 2_000));
        assertThat(receiver.received()).allSatisfy(r -> assertThat(r.path()).isEqualTo("/crm"));
        a.close();

        deleteBefore(".hooks", ends(logged));
        Node b = new Node("b", destinations, Duration.ofSeconds(6)).start(); // a new working set; audit resumed

        Eventually.until("every hook delivered to audit", WAIT,
                () -> receiver.received().stream().filter(r -> r.path().equals("/audit")).count() >= logged.size());
        Eventually.until("the retry topic committed past them", WAIT,
                () -> b.follower.committedRetryOffsets().values().stream().mapToLong(Long::longValue).sum() >= logged.size());
        Map<String, Integer> copies = copiesById(receiver.received());
        assertThat(copies.keySet()).containsExactlyInAnyOrderElementsOf(logged.stream().map(Logged::id).toList());
        assertThat(copies.values()).containsOnly(2); // once to crm, once to audit
    }

    /**
     * The retention rule for {@code fifo}: a paused {@code fifo} destination holds two
     * keys' hooks past the carry age. They are carried forward to the retry topic in order,
     * and carried again there once those copies are older than the carry age; then the hooks
     * topic's records and the first copies are deleted (as the topics' retention would), and a
     * node with a fresh working set, the destination resumed, delivers every hook exactly once
     * and each key's in acceptance order, the later hooks left on the hooks topic after the
     * carried ones.
     */
    @Test
    void fifoHooksHeldPastTheCarryAgeKeepTheirOrderWhenTheirRecordsAreDeleted() throws Exception {
        HookReceiver receiver = receiver();
        List<Destination> destinations = List.of(http("crm", receiver.uri("/crm"), RetryPolicy.defaults(),
                BreakerSettings.defaults(), Ordering.FIFO));
        Node a = carryingWhilePaused(destinations, "crm");

        Map<String, List<String>> accepted = Map.of("key0", new ArrayList<>(), "key1", new ArrayList<>());
        List<Logged> first = new ArrayList<>();
        for (int i = 0; i < 8; i++) { // two keys, interleaved
            first.add(produce("acme", "key" + (i % 2), "{\"n\":" + i + "}", "crm"));
            accepted.get("key" + (i % 2)).add(first.get(i).id());
        }
        Eventually.until("each hook carried to the retry topic, and each copy carried again there", WAIT,
                () -> a.follower.recordsCarriedInOrder() >= 2L * first.size() && committedTo(ends(first), a));
        List<Logged> later = new ArrayList<>();
        for (int i = 8; i < 12; i++) {
            later.add(produce("acme", "key" + (i % 2), "{\"n\":" + i + "}", "crm"));
            accepted.get("key" + (i % 2)).add(later.get(i - 8).id());
        }
        Eventually.until("the later hooks held", WAIT, () -> later.stream().allMatch(l -> a.store.get(l.id()).isPresent()));
        assertThat(receiver.requestCount()).isZero();
        a.close();

        deleteBefore(".hooks", ends(first));
        deleteBefore(".retry", newestCopies());
        Node b = new Node("b", destinations, Duration.ofSeconds(6)).start(); // a new working set; crm resumed

        List<Logged> all = new ArrayList<>(first);
        all.addAll(later);
        Eventually.until("every hook delivered", WAIT, () -> copiesById(receiver.received()).size() == all.size());
        Eventually.until("every offset committed", WAIT, () -> committedTo(ends(all), b));
        assertThat(copiesById(receiver.received()).values()).containsOnly(1);
        accepted.forEach((key, ids) -> assertThat(receiver.received().stream()
                .map(r -> r.header(OutboundHeaders.WEBHOOK_ID)).filter(ids::contains).toList())
                .as(key + " in acceptance order").isEqualTo(ids));
    }

    /**
     * The copies carried forward in order can be on the retry partition in any order: a key's
     * first hook carried again after its later ones were carried, its first copy then deleted
     * by the retention. Written here as a node that held them would have, scrambled and one
     * repeated, with their hooks records deleted and two later hooks of the key left there: a
     * node given both partitions delivers each hook once, all in acceptance order.
     */
    @Test
    void carriedCopiesInAnyOrderOnTheRetryTopicAreDeliveredInTheirKeysOrder() throws Exception {
        HookReceiver receiver = receiver();
        List<Logged> logged = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            logged.add(produce("acme", "github", "{\"n\":" + i + "}", "crm"));
        }
        int partition = logged.get(0).partition();
        Map<String, StoredHook> hooks = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> r : brokers.readAll(List.of(prefix + ".hooks"), l -> l.size() >= 6)) {
            StoredHook h = HookRecords.read(r).hook();
            hooks.put(h.id(), h);
        }
        long now = System.currentTimeMillis();
        for (int i : new int[] {2, 0, 3, 0, 1}) { // the first four, scrambled, the first twice
            Logged l = logged.get(i);
            DeliveryRow row = new DeliveryRow(l.id(), "crm", DeliveryState.PENDING, 0, now, now, now, null, null, null,
                    null, null);
            producer.send(RetryRecords.carried(prefix + ".retry", partition, hooks.get(l.id()), List.of(row), now,
                    l.offset())).get(30, TimeUnit.SECONDS);
        }
        deleteBefore(".hooks", Map.of(partition, logged.get(4).offset()));

        Node b = new Node("b", List.of(http("crm", receiver.uri("/crm"), RetryPolicy.defaults(), BreakerSettings.defaults(),
                Ordering.FIFO)), Duration.ofSeconds(6)).start();

        Eventually.until("every hook delivered", WAIT, () -> copiesById(receiver.received()).size() == logged.size());
        Eventually.until("both partitions committed past them", WAIT, () -> committedTo(ends(logged), b)
                && b.follower.committedRetryOffsets().getOrDefault(partition, -1L) == 5);
        assertThat(receiver.received()).extracting(r -> r.header(OutboundHeaders.WEBHOOK_ID))
                .as("once each, in acceptance order").containsExactlyElementsOf(logged.stream().map(Logged::id).toList());
    }

    /**
     * A hook held on the retry topic (its destination paused) is carried again there before
     * that topic's retention: once the first copies are deleted, a fresh node still delivers it.
     */
    @Test
    void aHookHeldOnTheRetryTopicPastItsRetentionIsStillDelivered() throws Exception {
        HookReceiver receiver = receiver();
        List<Destination> destinations = List.of(http("audit", receiver.uri("/audit")));
        Node a = carryingWhilePaused(destinations, "audit");

        List<Logged> logged = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            logged.add(produce("tenant" + i, "source" + i, "{\"n\":" + i + "}", "audit"));
        }
        Eventually.until("each hook moved to the retry topic, then carried again there", WAIT,
                () -> a.follower.hooksCarried() >= logged.size() && a.follower.recordsCarriedInOrder() >= logged.size()
                        && committedTo(ends(logged), a));
        a.close();

        deleteBefore(".hooks", ends(logged));
        deleteBefore(".retry", newestCopies());
        Node b = new Node("b", destinations, Duration.ofSeconds(6)).start();

        Eventually.until("every hook delivered", WAIT, () -> copiesById(receiver.received()).size() == logged.size());
        assertThat(copiesById(receiver.received()).keySet())
                .containsExactlyInAnyOrderElementsOf(logged.stream().map(Logged::id).toList());
        assertThat(copiesById(receiver.received()).values()).containsOnly(1);
    }

    /**
     * Per partition of the retry topic, the offset of the oldest newest-copy: every record
     * before it is an older copy of a hook that has a newer one after it.
     */
    private Map<Integer, Long> newestCopies() {
        Map<String, ConsumerRecord<byte[], byte[]>> newest = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> r : brokers.readAll(List.of(prefix + ".retry"), l -> !l.isEmpty())) {
            newest.merge(HookRecords.read(r).hook().id(), r, (x, y) -> x.offset() > y.offset() ? x : y);
        }
        Map<Integer, Long> out = new HashMap<>();
        newest.values().forEach(r -> out.merge(r.partition(), r.offset(), Math::min));
        return out;
    }

    /**
     * Node "a", carrying held hooks forward after 2 s, with {@code paused} paused in its working
     * set, started and owning every partition.
     */
    private Node carryingWhilePaused(List<Destination> destinations, String paused) {
        Node a = new Node("a", destinations, Duration.ofSeconds(6), FollowerSettings.DEFAULT_RETRY_MOVE_AFTER,
                FollowerSettings.DEFAULT_MAX_TRACKED, Duration.ofSeconds(2));
        a.store.deliveries().setPaused(paused, true, System.currentTimeMillis());
        a.start();
        Eventually.until("the follower owns every partition", WAIT, () -> a.follower.ownedPartitions().size() == PARTITIONS);
        return a;
    }

    /** Deletes the records of {@code <prefix><topic>} before the given offset of each partition, as the retention would. */
    private void deleteBefore(String topic, Map<Integer, Long> offsets) throws Exception {
        try (org.apache.kafka.clients.admin.Admin admin = org.apache.kafka.clients.admin.Admin.create(
                Map.of("bootstrap.servers", brokers.bootstrapServers()))) {
            Map<org.apache.kafka.common.TopicPartition, org.apache.kafka.clients.admin.RecordsToDelete> gone = new HashMap<>();
            offsets.forEach((p, end) -> gone.put(new org.apache.kafka.common.TopicPartition(prefix + topic, p),
                    org.apache.kafka.clients.admin.RecordsToDelete.beforeOffset(end)));
            admin.deleteRecords(gone).all().get(30, TimeUnit.SECONDS);
        }
    }

    /**
     * A node killed with SIGKILL while its share is pending (the receiver answering 503),
     * its data dir deleted: once the receiver answers 200, the other node alone delivers
     * every hook, after the group's session timeout. Slow: a child JVM and a session to wait out.
     */
    @Test
    @Tag("slow")
    void aNodeKilledWithItsDiskLostLeavesEveryHookToTheOther() throws Exception {
        HookReceiver receiver = receiver().defaultAnswer(Answer.status(503));
        Path aDir = dir.resolve("a");
        try (ChildJvm a = ChildJvm.start(FollowerChild.class, brokers.bootstrapServers(), prefix, aDir.toString(),
                receiver.uri("/crm").toString(), "6000")) {
            a.awaitLine(l -> l.equals("owned " + PARTITIONS), WAIT);
            Node b = new Node("b", List.of(quickHttp("crm", receiver.uri("/crm"))), Duration.ofSeconds(6)).start();
            Eventually.until("the partitions split between the two", WAIT,
                    () -> b.follower.ownedPartitions().size() == PARTITIONS / 2);
            a.awaitLine(l -> l.equals("owned " + PARTITIONS / 2), WAIT);

            List<Logged> logged = produceMany(200, "crm");
            Set<String> ids = new HashSet<>(logged.stream().map(Logged::id).toList());
            Eventually.until("every hook attempted and refused", WAIT,
                    () -> copiesById(receiver.received()).keySet().containsAll(ids));
            a.kill();
            a.waitFor(WAIT);
            deleteTree(aDir);
            int before = receiver.requestCount();
            receiver.defaultAnswer(Answer.status(200));

            // A never had a 200, so it repeated nothing: the extra copies are the attempts either
            // node had out when the answer changed, at most max_in_flight (8) each
            survivorDeliversEveryHook(receiver, before, b, logged, 16);
        }
    }

    /**
     * After the receiver's answer turned to 200 at request {@code before}: {@code survivor}
     * owns every partition, commits past every hook, and every hook arrived again with at
     * most {@code extra} copies more than one each.
     */
    private static void survivorDeliversEveryHook(HookReceiver receiver, int before, Node survivor, List<Logged> logged,
                                                  int extra) {
        Eventually.until("the survivor owns every partition", WAIT,
                () -> survivor.follower.ownedPartitions().size() == PARTITIONS);
        Eventually.until("every offset committed by the survivor", WAIT, () -> committedTo(ends(logged), survivor));
        List<Received> all = receiver.received();
        List<Received> after = all.subList(before, all.size());
        assertThat(copiesById(after).keySet()).containsAll(logged.stream().map(Logged::id).toList());
        assertThat(after.size() - logged.size()).isLessThanOrEqualTo(extra);
    }

    private static void deleteTree(Path root) throws java.io.IOException {
        try (var paths = java.nio.file.Files.walk(root)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                java.nio.file.Files.delete(p);
            }
        }
    }
}
