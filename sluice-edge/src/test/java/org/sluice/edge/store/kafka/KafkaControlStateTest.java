package org.sluice.edge.store.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.Properties;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.sluice.core.Clock;
import org.sluice.core.Limit;
import org.sluice.core.LimitSource;
import org.sluice.core.OverrideStoreException;
import org.sluice.core.TenantLimits;
import org.sluice.edge.delivery.KafkaBrokers;
import org.sluice.edge.delivery.KafkaBrokersExtension;
import org.sluice.edge.store.AuditRecord;
import org.sluice.edge.store.ControlState;
import org.sluice.edge.store.DisabledDestination;
import org.sluice.edge.store.HookStoreException;

/**
 * The fleet's control state on a real KRaft broker ({@link KafkaBrokers}): two
 * {@link KafkaControlState}s on one cluster stand for two nodes, A and B. Each test takes
 * its own topic prefix, so its own control topic.
 */
class KafkaControlStateTest {

    private static final long MAX_BODY = 8_000_000;
    /** How long a change made on one node may take to be seen on another before a test fails: generous, never asserted. */
    private static final long SEEN_WITHIN_MS = 30_000;
    private static final AtomicInteger PREFIXES = new AtomicInteger();

    @RegisterExtension
    static final KafkaBrokersExtension kafka = KafkaBrokersExtension.brokers(1);

    private final List<KafkaControlState> opened = new ArrayList<>();
    private final String prefix = "ctl" + PREFIXES.incrementAndGet();

    @AfterEach
    void closeNodes() {
        opened.forEach(KafkaControlState::close);
    }

    private KafkaControlState node() {
        return node(KafkaControlSettings.of(List.of(kafka.bootstrapServers()), prefix, 1, Map.of(), 10_000));
    }

    private KafkaControlState node(KafkaControlSettings settings) {
        KafkaControlState node = KafkaControlState.open(settings, MAX_BODY, System::currentTimeMillis);
        opened.add(node);
        return node;
    }

    private static TenantLimits limitsOn(KafkaControlState node) {
        TenantLimits limits = new TenantLimits(null, Map.of("acme", Limit.of(100, 100)), node, Clock.system());
        node.followOverrides(limits);
        return limits;
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(SEEN_WITHIN_MS);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(what + ": not seen within " + SEEN_WITHIN_MS + " ms");
            }
            Thread.sleep(20);
        }
    }

    // ---------------------------------------------------------------- pauses

    @Test
    void aPauseAndAResumeMadeOnOneNodeAreSeenOnTheOther() throws Exception {
        KafkaControlState a = node();
        KafkaControlState b = node();
        ConcurrentLinkedQueue<String> toldB = new ConcurrentLinkedQueue<>();
        b.onPausedChanged(toldB::add);
        assertThat(a.caughtUp()).isTrue();
        assertThat(b.pausedDestinations()).isEmpty();

        a.setPaused("billing", true, 1_000);
        assertThat(a.pausedDestinations()).containsExactly("billing"); // answered: visible on the writer at once
        await("the pause on B", () -> b.pausedDestinations().contains("billing"));
        assertThat(b.mayBePaused("billing")).isTrue();
        assertThat(b.mayBePaused("audit")).isFalse();
        // B's listener is told after its state changes: wait for the telling too
        await("B told of the pause", () -> toldB.size() >= 1);
        assertThat(toldB).containsExactly("billing");

        a.setPaused("billing", false, 2_000);
        await("the resume on B", () -> b.pausedDestinations().isEmpty());
        await("B told of the resume", () -> toldB.size() >= 2);
        assertThat(toldB).containsExactly("billing", "billing");
        assertThat(a.pausedDestinations()).isEmpty();
    }

    @Test
    void aDisableMadeOnOneNodeHoldsOnTheOtherAndAfterARestartUntilEnabled() throws Exception {
        KafkaControlState a = node();
        KafkaControlState b = node();
        ConcurrentLinkedQueue<String> toldB = new ConcurrentLinkedQueue<>();
        b.onPausedChanged(toldB::add);
        DisabledDestination disabled = new DisabledDestination(1_000, "HTTP 503");

        a.setDisabled("billing", disabled, 1_000);
        assertThat(a.disabledDestinations()).containsExactly(Map.entry("billing", disabled));
        await("the disable on B", () -> b.disabledDestinations().containsKey("billing"));
        assertThat(b.disabledDestinations().get("billing")).isEqualTo(disabled);
        assertThat(b.mayBePaused("billing")).isTrue();
        assertThat(b.pausedDestinations()).isEmpty(); // a disable is not a pause
        await("B told of the disable", () -> toldB.size() >= 1);
        assertThat(toldB).containsExactly("billing");
        a.close();
        b.close();

        KafkaControlState restarted = node();
        assertThat(restarted.disabledDestinations()).containsExactly(Map.entry("billing", disabled));
        restarted.setDisabled("billing", null, 2_000);
        assertThat(restarted.disabledDestinations()).isEmpty();
        assertThat(restarted.mayBePaused("billing")).isFalse();
        restarted.close();
        assertThat(node().disabledDestinations()).isEmpty();
    }

    /**
     * The fleet's run of failures of a destination is one record: a start stored on A is read
     * on B; B's tombstone (a success there) clears it on A; a disable and an enable each clear
     * a start stored meanwhile, and a restart reads what is left.
     */
    @Test
    void aRunsStartIsOneRecordForTheFleetAndADisableOrAnEnableClearsIt() throws Exception {
        KafkaControlState a = node();
        KafkaControlState b = node();
        a.setFailingSince("billing", 1_000, 1_000);
        assertThat(a.failingSince()).containsExactly(Map.entry("billing", 1_000L));
        await("the start on B", () -> b.failingSince().containsKey("billing"));
        assertThat(b.failingSince()).containsExactly(Map.entry("billing", 1_000L));
        assertThat(b.mayBePaused("billing")).as("a run of failures holds nothing").isFalse();

        b.setFailingSince("billing", ControlState.NOT_FAILING, 2_000);
        await("the clear on A", () -> a.failingSince().isEmpty());

        a.setFailingSince("billing", 3_000, 3_000);
        await("the second start on B", () -> b.failingSince().containsKey("billing"));
        b.setDisabled("billing", new DisabledDestination(4_000, "HTTP 503"), 4_000);
        assertThat(b.failingSince()).as("the disable ends the run").isEmpty();
        await("the disable and the clear on A", () -> a.disabledDestinations().containsKey("billing") && a.failingSince().isEmpty());

        a.setFailingSince("billing", 5_000, 5_000); // a start written as the disable arrived
        a.setDisabled("billing", null, 6_000);
        assertThat(a.failingSince()).as("the enable starts afresh").isEmpty();
        a.setFailingSince("search", 7_000, 7_000);
        a.close();
        b.close();
        assertThat(node().failingSince()).containsExactly(Map.entry("search", 7_000L));
    }

    // ---------------------------------------------------------------- overrides

    @Test
    void anOverrideSetOnOneNodeAppliesOnTheOther() throws Exception {
        KafkaControlState a = node();
        KafkaControlState b = node();
        TenantLimits onA = limitsOn(a);
        TenantLimits onB = limitsOn(b);
        Limit override = Limit.of(5, 10).withMaxQueue(3);

        onA.putOverride("acme", override);
        assertThat(onA.effective("acme").limit()).isEqualTo(override);
        await("the override on B", () -> onB.effective("acme").source() == LimitSource.OVERRIDE);
        assertThat(onB.effective("acme").limit()).isEqualTo(override);

        onB.putOverride("globex", Limit.of(1, 1));
        await("B's override on A", () -> onA.effective("globex").source() == LimitSource.OVERRIDE);

        assertThat(onA.deleteOverride("acme")).isTrue();
        await("the removal on B", () -> onB.effective("acme").source() == LimitSource.CONFIG);
        assertThat(onB.effective("acme").limit()).isEqualTo(Limit.of(100, 100));
        assertThat(onA.effective("acme").source()).isEqualTo(LimitSource.CONFIG);
    }

    @Test
    void overridesWrittenOnBothNodesAtOnceEndTheSameEverywhereAsTheTopicOrdersThem() throws Exception {
        KafkaControlState a = node();
        KafkaControlState b = node();
        TenantLimits onA = limitsOn(a);
        TenantLimits onB = limitsOn(b);
        AtomicReference<Throwable> failedOnB = new AtomicReference<>();
        Thread writerB = new Thread(() -> {
            try {
                for (int i = 1; i <= 40; i++) {
                    onB.putOverride("acme", Limit.of(1000 + i, 1));
                }
            } catch (RuntimeException e) {
                failedOnB.set(e);
            }
        });
        writerB.start();
        for (int i = 1; i <= 40; i++) {
            onA.putOverride("acme", Limit.of(i, 1));
        }
        writerB.join();
        assertThat(failedOnB.get()).isNull();

        KafkaControlState late = node(); // reads the topic after every write: its newest record is the truth
        Limit newest = late.load().get("acme");
        assertThat(newest).isNotNull();
        await("A's limits at the topic's newest", () -> newest.equals(onA.effective("acme").limit()));
        await("B's limits at the topic's newest", () -> newest.equals(onB.effective("acme").limit()));
    }

    // ---------------------------------------------------------------- restarts

    @Test
    void pausesAndOverridesSurviveARestartOfEveryNode() throws Exception {
        KafkaControlState a = node();
        KafkaControlState b = node();
        TenantLimits onA = limitsOn(a);
        limitsOn(b);
        a.setPaused("billing", true, 1_000);
        a.setPaused("search", true, 1_000);
        b.setPaused("search", false, 2_000);
        onA.putOverride("acme", Limit.of(7, 7));
        onA.putOverride("globex", Limit.of(8, 8));
        assertThat(onA.deleteOverride("globex")).isTrue();
        a.close();
        b.close();

        KafkaControlState restarted = node();
        assertThat(restarted.caughtUp()).isTrue();
        assertThat(restarted.pausedDestinations()).containsExactly("billing");
        assertThat(restarted.load()).isEqualTo(Map.of("acme", Limit.of(7, 7)));
        assertThat(limitsOn(restarted).effective("acme").limit()).isEqualTo(Limit.of(7, 7));
    }

    // ---------------------------------------------------------------- signing keys

    private static final String OLD_SECRET = "whsec_b2xkLWZsZWV0LXNlY3JldA==";
    private static final String NEW_SECRET = "whsec_bmV3LWZsZWV0LXNlY3JldA==";

    /** A node's signing destination {@code app} and its rotations over {@code node}, following other nodes' rotations. */
    private static org.sluice.edge.delivery.WebhookSigner signingOn(KafkaControlState node,
            AtomicReference<org.sluice.edge.delivery.SecretRotations> rotations) {
        org.sluice.edge.config.SluiceConfig c = org.sluice.edge.config.ConfigLoader.parse("""
                destinations:
                  app: {url: "http://127.0.0.1:9/in", signing: {scheme: standard_webhooks, secret: "%s"}}
                sources:
                  gh: {verify: {scheme: none}, deliver_to: [app]}
                """.formatted(OLD_SECRET), Map.of(), "test");
        org.sluice.edge.delivery.SecretRotations r = new org.sluice.edge.delivery.SecretRotations(
                c.destinations().values(), node);
        node.onSigningChanged(r::changed);
        r.load();
        rotations.set(r);
        return c.destinations().get("app").headers().signer().orElseThrow();
    }

    private static boolean accepts(org.sluice.edge.delivery.WebhookSigner signer, String secret, long epochSeconds) {
        byte[] body = "{}".getBytes(StandardCharsets.UTF_8);
        return new org.sluice.edge.delivery.StandardWebhooksCheck(secret, 300).genuine("m", Long.toString(epochSeconds),
                signer.signature("m", epochSeconds, body), body, epochSeconds);
    }

    @Test
    void aSigningKeyRotatedOnOneNodeSignsOnTheOtherAndAfterARestart() throws Exception {
        KafkaControlState a = node();
        KafkaControlState b = node();
        AtomicReference<org.sluice.edge.delivery.SecretRotations> onA = new AtomicReference<>();
        AtomicReference<org.sluice.edge.delivery.SecretRotations> onB = new AtomicReference<>();
        signingOn(a, onA);
        org.sluice.edge.delivery.WebhookSigner signerB = signingOn(b, onB);
        long now = 1_800_000_000_000L;
        assertThat(onA.get().rotate("app", NEW_SECRET, 600, now))
                .isInstanceOf(org.sluice.edge.delivery.SecretRotations.Done.class);

        await("the rotation signing on B", () -> signerB.keys().size() == 2);
        long t = now / 1000;
        assertThat(accepts(signerB, OLD_SECRET, t + 599)).isTrue();
        assertThat(accepts(signerB, NEW_SECRET, t + 599)).isTrue();
        assertThat(accepts(signerB, OLD_SECRET, t + 600)).isFalse();
        assertThat(accepts(signerB, NEW_SECRET, t + 600)).isTrue();
        assertThat(new String(b.signingSecrets().get("app"), StandardCharsets.UTF_8)).contains(NEW_SECRET);
        a.close();
        b.close();

        org.sluice.edge.delivery.WebhookSigner restarted = signingOn(node(), new AtomicReference<>());
        assertThat(accepts(restarted, OLD_SECRET, t + 600)).isFalse();
        assertThat(accepts(restarted, NEW_SECRET, t + 600)).isTrue();
    }

    // ---------------------------------------------------------------- audit

    @Test
    void eachChangeIsAuditedOnceAndListedOnceOnEveryNode() throws Exception {
        KafkaControlState a = node();
        KafkaControlState b = node();
        TenantLimits onA = limitsOn(a);
        limitsOn(b);
        try (ControlState.ActorScope scope = a.actingAs("alice")) {
            onA.putOverride("acme", Limit.of(5, 10));
            a.setPaused("billing", true, 1_000);
            a.record("pause", null, Map.of("destination", "billing", "paused", false),
                    Map.of("destination", "billing", "paused", true));
        }
        await("both audit records on B", () -> b.audit(100).size() >= 2);
        b.setPaused("search", true, 2_000); // once A sees this, its follower has read back its own records too
        await("B's pause on A", () -> a.pausedDestinations().contains("search"));

        for (KafkaControlState node : List.of(a, b)) {
            List<AuditRecord> audit = node.audit(100);
            assertThat(audit).extracting(AuditRecord::action).containsExactly("pause", AuditRecord.PUT);
            assertThat(audit).extracting(AuditRecord::actor).containsExactly("alice", "alice");
            assertThat(audit.get(1).tenant()).isEqualTo("acme");
            assertThat(audit.get(1).before()).isNull();
            assertThat(Limit.parse(audit.get(1).after(), MAX_BODY)).isEqualTo(Limit.of(5, 10));
            assertThat(node.audit(1)).hasSize(1);
        }
        KafkaControlState restarted = node();
        assertThat(restarted.audit(100)).extracting(AuditRecord::action).containsExactly("pause", AuditRecord.PUT);
    }

    // ---------------------------------------------------------------- failures

    @Test
    void brokersThatDoNotAnswerBoundTheBootAndRefuseEveryWrite() throws Exception {
        int port;
        try (ServerSocket unused = new ServerSocket(0)) {
            port = unused.getLocalPort();
        }
        KafkaControlState cut = node(new KafkaControlSettings(List.of("127.0.0.1:" + port), prefix, 1, Map.of(), 1_000, 2_000));

        assertThat(cut.caughtUp()).isFalse();
        assertThat(cut.mayBePaused("billing")).isTrue();
        assertThat(cut.load()).isEmpty();
        assertThatThrownBy(cut::pausedDestinations).isInstanceOf(HookStoreException.class)
                .hasMessageContaining(prefix + ".control");
        assertThatThrownBy(() -> cut.audit(10)).isInstanceOf(HookStoreException.class);
        assertThatThrownBy(() -> cut.setPaused("billing", true, 1_000)).isInstanceOf(HookStoreException.class)
                .hasMessageContaining("pausing billing");
        TenantLimits limits = new TenantLimits(null, Map.of(), cut, Clock.system());
        assertThatThrownBy(() -> limits.putOverride("acme", Limit.of(1, 1))).isInstanceOf(OverrideStoreException.class);
        assertThat(limits.effective("acme").source()).isNotEqualTo(LimitSource.OVERRIDE);
    }

    @Test
    void aWriteWhileTheBrokerIsDownIsRefusedAndBothNodesCarryOnOnceItIsBack() throws Exception {
        KafkaControlSettings settings = new KafkaControlSettings(List.of(kafka.bootstrapServers()), prefix, 1, Map.of(),
                2_000, KafkaControlSettings.DEFAULT_CATCH_UP_MS);
        KafkaControlState a = node(settings);
        KafkaControlState b = node(settings);
        TenantLimits onA = limitsOn(a);
        int broker = kafka.brokerIds().iterator().next();
        kafka.stopBroker(broker);
        try {
            assertThatThrownBy(() -> a.setPaused("billing", true, 1_000)).isInstanceOf(HookStoreException.class)
                    .hasMessageContaining("pausing billing");
            assertThatThrownBy(() -> onA.putOverride("acme", Limit.of(1, 1))).isInstanceOf(OverrideStoreException.class);
            assertThat(onA.effective("acme").limit()).isEqualTo(Limit.of(100, 100)); // nothing changed
        } finally {
            kafka.startBroker(broker);
        }
        await("a write accepted again", () -> {
            try {
                a.setPaused("search", true, 2_000);
                return true;
            } catch (HookStoreException stillDown) {
                return false;
            }
        });
        await("B following again", () -> b.pausedDestinations().contains("search"));
    }

    @Test
    void recordsANodeCannotReadArePassedOverAndTheRestApplies() throws Exception {
        KafkaControlState first = node(); // makes the topic
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        String topic = prefix + ".control";
        try (KafkaProducer<byte[], byte[]> other = new KafkaProducer<>(p)) {
            other.send(new ProducerRecord<>(topic, utf8("junk/x"), utf8("{}"))).get();
            other.send(new ProducerRecord<>(topic, utf8("pause/"), utf8("{}"))).get();
            other.send(new ProducerRecord<>(topic, utf8("override/acme"), utf8("not json"))).get();
            other.send(new ProducerRecord<>(topic, utf8("override/globex"), utf8("{\"rate\":-1}"))).get();
            other.send(new ProducerRecord<>(topic, utf8("audit/1/w/1"), utf8("[1,2]"))).get();
            other.send(new ProducerRecord<>(topic, utf8("audit/1/w/2"), utf8("{\"actor\":7}"))).get();
            other.send(new ProducerRecord<>(topic, utf8("pause/billing"), utf8("{\"paused\":true}"))).get();
        }
        await("the last record on the first node", () -> first.pausedDestinations().contains("billing"));

        KafkaControlState fresh = node();
        assertThat(fresh.pausedDestinations()).containsExactly("billing");
        assertThat(fresh.load()).isEmpty();
        assertThat(fresh.audit(10)).isEmpty();
        TenantLimits limits = limitsOn(fresh);
        assertThat(limits.effective("globex").source()).isNotEqualTo(LimitSource.OVERRIDE);
        limits.putOverride("acme", Limit.of(3, 3));
        assertThat(fresh.audit(10)).extracting(AuditRecord::action).containsExactly(AuditRecord.PUT);
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aControlTopicWithSeveralPartitionsFailsTheBootNamingIt() throws Exception {
        kafka.createTopic(prefix + ".control", 3, 1, Map.of("cleanup.policy", "compact"));
        assertThatThrownBy(this::node).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(prefix + ".control").hasMessageContaining("3 partitions");
    }

    @Test
    void aControlTopicThatIsNotCompactedFailsTheBootNamingIt() throws Exception {
        kafka.createTopic(prefix + ".control", 1, 1, Map.of("cleanup.policy", "delete"));
        assertThatThrownBy(this::node).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(prefix + ".control").hasMessageContaining("cleanup.policy=delete");
    }

    @Test
    void settingsRefuseWhatKafkaOrTheStoreWouldRefuse() {
        List<String> servers = List.of("k1:9092");
        assertThatThrownBy(() -> KafkaControlSettings.of(List.of(), "sluice", 3, Map.of(), 5000))
                .hasMessageContaining("store.kafka.bootstrap_servers");
        assertThatThrownBy(() -> KafkaControlSettings.of(servers, "sluice", 0, Map.of(), 5000))
                .hasMessageContaining("store.kafka.replication_factor").hasMessageContaining("got 0");
        assertThatThrownBy(() -> KafkaControlSettings.of(servers, "no spaces", 3, Map.of(), 5000))
                .hasMessageContaining("store.kafka.topic_prefix").hasMessageContaining("no spaces");
        assertThatThrownBy(() -> KafkaControlSettings.of(servers, "sluice", 3, Map.of("acks", "1"), 5000))
                .hasMessageContaining("store.kafka.properties").hasMessageContaining("acks");
        assertThat(KafkaControlSettings.of(servers, "sluice", 3, Map.of(), 5000).topic()).isEqualTo("sluice.control");
    }
}
