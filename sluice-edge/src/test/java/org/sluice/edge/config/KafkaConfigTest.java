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
import org.sluice.edge.delivery.Destination;
import org.sluice.edge.delivery.targets.KafkaTarget;
import org.sluice.edge.delivery.Ordering;

/** {@code type: kafka} destinations: values read, defaults, and every refusal's message (never a property's value). */
class KafkaConfigTest {

    private static final String K = "destinations:\n  ev:\n    type: kafka\n    bootstrap_servers: [\"127.0.0.1:9092\"]\n"
            + "    topic: \"hooks.{tenant}\"\n";

    @Test
    void aFullKafkaDestinationReadsEveryValue() {
        SluiceConfig c = ConfigLoader.parse("""
                destinations:
                  ev:
                    type: kafka
                    bootstrap_servers: ["k1.test:9092", "k2.test:9093"]
                    topic: "webhooks.{tenant}.{source}"
                    key: source
                    compression: zstd
                    linger_ms: 20
                    properties: {security.protocol: SASL_SSL, sasl.jaas.config: "${JAAS}", batch.size: 65536, max.in.flight.requests.per.connection: 1}
                    forward_headers: [Content-Type]
                    ordering: fifo
                    timeout_ms: 5000
                sources:
                  gh: {tenant: acme, verify: {scheme: none}, deliver_to: [ev]}
                """, Map.of("JAAS", "secret-jaas-line"), "test");
        Destination d = c.destinations().get("ev");
        assertThat(d.type()).isEqualTo("kafka");
        assertThat(d.target()).isInstanceOf(KafkaTarget.class);
        assertThat(d.ordering()).isEqualTo(Ordering.FIFO);
        assertThat(d.timeoutMs()).isEqualTo(5000);
        KafkaTarget k = (KafkaTarget) d.target();
        assertThat(k.bootstrapServers()).containsExactly("k1.test:9092", "k2.test:9093");
        assertThat(k.topicFor("acme", "gh")).isEqualTo("webhooks.acme.gh");
        assertThat(k.topicFor(null, "gh")).isEqualTo("webhooks._.gh");
        assertThat(k.key()).isEqualTo(KafkaTarget.Key.SOURCE);
        assertThat(k.compression()).isEqualTo("zstd");
        assertThat(k.lingerMs()).isEqualTo(20);
        assertThat(k.properties()).containsEntry("security.protocol", "SASL_SSL").containsEntry("sasl.jaas.config", "secret-jaas-line")
                .containsEntry("batch.size", "65536");
        assertThat(d.toString()).contains("sasl.jaas.config").doesNotContain("secret-jaas-line");
    }

    @Test
    void defaults() {
        Destination d = ConfigLoader.parse(K).destinations().get("ev");
        KafkaTarget k = (KafkaTarget) d.target();
        assertThat(k.key()).isEqualTo(KafkaTarget.Key.TENANT);
        assertThat(k.compression()).isEqualTo("none");
        assertThat(k.lingerMs()).isEqualTo(5);
        assertThat(k.properties()).isEmpty();
        assertThat(d.ordering()).isEqualTo(Ordering.NONE);
    }

    static Stream<Arguments> refusals() {
        return Stream.of(
                Arguments.of("no bootstrap_servers", "destinations: {ev: {type: kafka, topic: t}}",
                        List.of("destinations.ev.bootstrap_servers is required: a list of host:port brokers, e.g. [\"127.0.0.1:9092\"]")),
                Arguments.of("no topic", "destinations: {ev: {type: kafka, bootstrap_servers: [\"h:1\"]}}",
                        List.of("destinations.ev.topic is required: the topic name, where {tenant} and {source} are filled per hook")),
                Arguments.of("a server without a port", "destinations: {ev: {type: kafka, topic: t, bootstrap_servers: [\"h:1\", \"kafka\"]}}",
                        List.of("destinations.ev.bootstrap_servers[1] must be host:port with a port from 1 to 65535, got \"kafka\"")),
                Arguments.of("a topic with a bad character", "destinations: {ev: {type: kafka, bootstrap_servers: [\"h:1\"], topic: \"a/{tenant}\"}}",
                        List.of("destinations.ev.topic must be a topic name of characters from A-Z a-z 0-9 . _ - and the placeholders"
                                + " {tenant} and {source}, got \"a/{tenant}\"")),
                Arguments.of("an unknown placeholder", "destinations: {ev: {type: kafka, bootstrap_servers: [\"h:1\"], topic: \"a.{env}\"}}",
                        List.of("destinations.ev.topic must be a topic name of characters from A-Z a-z 0-9 . _ - and the placeholders"
                                + " {tenant} and {source}, got \"a.{env}\"")),
                Arguments.of("an unknown key", K + "    key: partition\n",
                        List.of("destinations.ev.key must be one of tenant, source, dedupe_key, hook_id, none, got \"partition\"")),
                Arguments.of("fifo with a key that spreads an origin", K + "    key: hook_id\n    ordering: fifo\n",
                        List.of("destinations.ev.key must be tenant or source when ordering is fifo (every hook of a (tenant, source)"
                                + " must go to one partition), got \"hook_id\"")),
                Arguments.of("an unknown compression", K + "    compression: brotli\n",
                        List.of("destinations.ev.compression must be one of none, gzip, snappy, lz4, zstd, got \"brotli\"")),
                Arguments.of("linger beyond the timeout", K + "    linger_ms: 3000\n    timeout_ms: 2000\n",
                        List.of("destinations.ev.linger_ms must be less than timeout_ms (2000), got 3000")),
                Arguments.of("a property Sluice owns", K + "    properties: {acks: \"1\"}\n",
                        List.of("destinations.ev.properties.acks is set by Sluice itself (use the destination's own keys: bootstrap_servers,"
                                + " compression, linger_ms, timeout_ms; idempotence and acks=all are the delivery contract), got a value")),
                Arguments.of("too many requests in flight", K + "    properties: {max.in.flight.requests.per.connection: 10}\n",
                        List.of("destinations.ev.properties.max.in.flight.requests.per.connection must be an integer from 1 to 5"
                                + " (more would let the idempotent producer reorder), got \"10\"")),
                Arguments.of("a property that is a mapping", K + "    properties: {ssl: {a: 1}}\n",
                        List.of("destinations.ev.properties.ssl must be a string, number or boolean, got a mapping")),
                Arguments.of("an http key on a kafka destination", K + "    url: \"http://h.test/\"\n",
                        List.of("unknown key \"destinations.ev.url\" (known keys here: type, timeout_ms, max_in_flight, rate, forward_headers,"
                                + " ordering, retry, breaker, disable_after, bootstrap_servers, topic, key, compression, linger_ms, properties)")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusals")
    void failsTheBootNamingTheKeyAndValue(String why, String yaml, List<String> messages) {
        ConfigException e = catchThrowableOfType(ConfigException.class, () -> ConfigLoader.parse(yaml));
        assertThat(e).as(why).isNotNull();
        assertThat(e.errors()).as(why).containsExactlyElementsOf(messages);
    }

    @Test
    void aRefusedPropertyNeverPrintsItsValue() {
        ConfigException e = catchThrowableOfType(ConfigException.class,
                () -> ConfigLoader.parse(K + "    properties: {enable.idempotence: \"hunter2-secret\", sasl.jaas.config: {x: \"hunter3\"}}\n"));
        assertThat(e.getMessage()).doesNotContain("hunter2").doesNotContain("hunter3");
        assertThat(e.errors()).hasSize(2);
    }
}
