package org.sluice.edge.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** {@code store.kind} and {@code store.kafka}: values read, defaults, and every refusal's message (never a property's value). */
class StoreKindConfigTest {

    private static final String K = "store:\n  kind: kafka\n  kafka:\n    bootstrap_servers: [\"127.0.0.1:9092\"]\n";

    @Test
    void noStoreSectionIsTheEmbeddedRocksDbStore() {
        StoreConfig s = ConfigLoader.parse("node: {id: a}\n").store();
        assertThat(s.kind()).isEqualTo(StoreConfig.Kind.ROCKSDB);
        assertThat(s.kafka()).isEmpty();
        assertThat(s).isEqualTo(StoreConfig.defaults());
    }

    @Test
    void kafkaDefaults() {
        StoreConfig.Kafka k = ConfigLoader.parse(K).store().kafka().orElseThrow();
        assertThat(k.bootstrapServers()).containsExactly("127.0.0.1:9092");
        assertThat(k.topicPrefix()).isEqualTo("sluice");
        assertThat(k.partitions()).isEqualTo(32);
        assertThat(k.replicationFactor()).isEqualTo(3);
        assertThat(k.lingerMs()).isEqualTo(2);
        assertThat(k.timeoutMs()).isEqualTo(5000);
        assertThat(k.properties()).isEmpty();
        assertThat(k.hooksTopic()).isEqualTo("sluice.hooks");
        assertThat(k.controlTopic()).isEqualTo("sluice.control");
        assertThat(k.deadTopic()).isEqualTo("sluice.dead");
        assertThat(k.retryTopic()).isEqualTo("sluice.retry");
        assertThat(k.deliveryGroup()).isEqualTo("sluice.delivery");
    }

    @Test
    void everyKafkaValueIsRead() {
        SluiceConfig c = ConfigLoader.parse("""
                store:
                  kind: kafka
                  max_bytes: 1000
                  kafka:
                    bootstrap_servers: ["k1.test:9092", "k2.test:9093"]
                    topic_prefix: edge-eu_1.prod
                    partitions: 12
                    replication_factor: 1
                    linger_ms: 0
                    timeout_ms: 750
                    properties: {security.protocol: SASL_SSL, sasl.jaas.config: "${JAAS}", batch.size: 65536}
                """, Map.of("JAAS", "secret-jaas-line"), "test");
        StoreConfig.Kafka k = c.store().kafka().orElseThrow();
        assertThat(c.store().maxBytes()).isEqualTo(1000);
        assertThat(k).isEqualTo(new StoreConfig.Kafka(List.of("k1.test:9092", "k2.test:9093"), "edge-eu_1.prod", 12, 1,
                0, 750, Map.of("security.protocol", "SASL_SSL", "sasl.jaas.config", "secret-jaas-line", "batch.size", "65536")));
        assertThat(k.hooksTopic()).isEqualTo("edge-eu_1.prod.hooks");
        assertThat(c.toString()).contains("sasl.jaas.config").doesNotContain("secret-jaas-line");
        assertThat(c.summary()).contains("store=kafka(k1.test:9092,k2.test:9093 edge-eu_1.prod.hooks)");
    }

    @Test
    void kafkaSettingsUnderTheRocksDbKindAreCheckedButUnused() {
        StoreConfig s = ConfigLoader.parse("store: {kafka: {bootstrap_servers: [\"h:1\"]}}").store();
        assertThat(s.kind()).isEqualTo(StoreConfig.Kind.ROCKSDB);
        assertThat(s.kafka()).isEmpty();
        ConfigException e = catchThrowableOfType(ConfigException.class,
                () -> ConfigLoader.parse("store: {kafka: {bootstrap_servers: [\"h:1\"], partitions: 0}}"));
        assertThat(e.errors()).containsExactly("store.kafka.partitions must be an integer between 1 and 100000, got 0");
    }

    @Test
    void theLongestPrefixLeavesRoomForEveryTopic() {
        String longest = "p".repeat(241);
        StoreConfig.Kafka k = ConfigLoader.parse(K + "    topic_prefix: " + longest + "\n").store().kafka().orElseThrow();
        assertThat(k.controlTopic()).hasSize(249);
    }

    static Stream<Arguments> refusals() {
        String sources = "sources:\n  gh: {tenant: acme, verify: {scheme: none}, dedupe: {header: X-Id}}\n";
        return Stream.of(
                Arguments.of("an unknown kind", "store: {kind: postgres}",
                        List.of("store.kind must be one of rocksdb, kafka, got \"postgres\"")),
                Arguments.of("kind kafka without settings", "store: {kind: kafka}",
                        List.of("store.kafka.bootstrap_servers is required: a list of host:port brokers, e.g. [\"127.0.0.1:9092\"]")),
                Arguments.of("no bootstrap servers", "store: {kind: kafka, kafka: {bootstrap_servers: []}}",
                        List.of("store.kafka.bootstrap_servers must name at least one broker as host:port, got an empty list")),
                Arguments.of("a server without a port", "store: {kind: kafka, kafka: {bootstrap_servers: [\"kafka\"]}}",
                        List.of("store.kafka.bootstrap_servers[0] must be host:port with a port from 1 to 65535, got \"kafka\"")),
                Arguments.of("replication factor 0", K + "    replication_factor: 0\n",
                        List.of("store.kafka.replication_factor must be an integer between 1 and 32767, got 0")),
                Arguments.of("a negative replication factor", K + "    replication_factor: -3\n",
                        List.of("store.kafka.replication_factor must be an integer between 1 and 32767, got -3")),
                Arguments.of("no partitions", K + "    partitions: 0\n",
                        List.of("store.kafka.partitions must be an integer between 1 and 100000, got 0")),
                Arguments.of("a timeout of 0", K + "    timeout_ms: 0\n",
                        List.of("store.kafka.timeout_ms must be an integer between 1 and 3600000, got 0")),
                Arguments.of("linger beyond the timeout", K + "    linger_ms: 100\n    timeout_ms: 100\n",
                        List.of("store.kafka.linger_ms must be less than store.kafka.timeout_ms (100), got 100")),
                Arguments.of("a prefix with a slash", K + "    topic_prefix: \"a/b\"\n",
                        List.of("store.kafka.topic_prefix must be 1 to 241 characters from A-Z a-z 0-9 . _ - (Kafka's topic"
                                + " characters; the longest topic, <topic_prefix>.control, must stay within 249), got \"a/b\"")),
                Arguments.of("an empty prefix", K + "    topic_prefix: \"\"\n",
                        List.of("store.kafka.topic_prefix must be 1 to 241 characters from A-Z a-z 0-9 . _ - (Kafka's topic"
                                + " characters; the longest topic, <topic_prefix>.control, must stay within 249), got \"\"")),
                Arguments.of("a prefix too long for Kafka", K + "    topic_prefix: " + "p".repeat(242) + "\n",
                        List.of("store.kafka.topic_prefix must be 1 to 241 characters from A-Z a-z 0-9 . _ - (Kafka's topic"
                                + " characters; the longest topic, <topic_prefix>.control, must stay within 249), got \""
                                + "p".repeat(64) + "...\"")),
                Arguments.of("a property Sluice owns", K + "    properties: {acks: \"1\"}\n",
                        List.of("store.kafka.properties.acks is set by Sluice itself (use store.kafka's own keys: bootstrap_servers,"
                                + " linger_ms, timeout_ms; idempotence and acks=all are the log's contract, and its consumer group"
                                + " is <topic_prefix>.delivery), got a value")),
                Arguments.of("the consumer group", K + "    properties: {group.id: mine}\n",
                        List.of("store.kafka.properties.group.id is set by Sluice itself (use store.kafka's own keys: bootstrap_servers,"
                                + " linger_ms, timeout_ms; idempotence and acks=all are the log's contract, and its consumer group"
                                + " is <topic_prefix>.delivery), got a value")),
                Arguments.of("too many requests in flight", K + "    properties: {max.in.flight.requests.per.connection: 6}\n",
                        List.of("store.kafka.properties.max.in.flight.requests.per.connection must be an integer from 1 to 5"
                                + " (more would let the idempotent producer reorder), got \"6\"")),
                Arguments.of("an unknown key", K + "    topic: x\n",
                        List.of("unknown key \"store.kafka.topic\" (known keys here: bootstrap_servers, topic_prefix, partitions,"
                                + " replication_factor, linger_ms, timeout_ms, properties)")),
                Arguments.of("a dedupe key on the node's scope", K + sources,
                        List.of("sources.gh.dedupe needs dedupe.scope: fleet under store.kind: kafka (the log keeps no index of"
                                + " dedupe keys: only the fleet's claim in Redis finds a copy another node accepted), got"
                                + " dedupe.scope: node")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusals")
    void failsTheBootNamingTheKeyAndValue(String why, String yaml, List<String> messages) {
        ConfigException e = catchThrowableOfType(ConfigException.class, () -> ConfigLoader.parse(yaml));
        assertThat(e).as(why).isNotNull();
        assertThat(e.errors()).as(why).containsExactlyElementsOf(messages);
    }

    @Test
    void aDedupeKeyOnTheFleetScopeIsTaken() {
        SluiceConfig c = ConfigLoader.parse(K + "dedupe: {scope: fleet}\n"
                + "sources:\n  gh: {tenant: acme, verify: {scheme: none}, dedupe: {header: X-Id}}\n");
        assertThat(c.store().kind()).isEqualTo(StoreConfig.Kind.KAFKA);
    }

    @Test
    void aRefusedPropertyNeverPrintsItsValue() {
        ConfigException e = catchThrowableOfType(ConfigException.class,
                () -> ConfigLoader.parse(K + "    properties: {enable.idempotence: \"hunter2-secret\"}\n"));
        assertThat(e.getMessage()).doesNotContain("hunter2");
    }
}
