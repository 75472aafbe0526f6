package org.sluice.edge.delivery.targets;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A {@code type: kafka} destination's target: a Kafka topic, with the producer's settings
 * (validated by the {@code delivery.kafka} room's reader).
 *
 * @param bootstrapServers {@code bootstrap_servers}: host:port pairs the producer starts from
 * @param topic            {@code topic}: a topic name in which {@code {tenant}} and {@code {source}} are filled per hook
 * @param key              {@code key}: what the record key is
 * @param compression      {@code compression}: the producer's {@code compression.type}
 * @param lingerMs         {@code linger_ms}: the producer's {@code linger.ms}
 * @param properties       {@code properties}: more producer settings, passed as they are (may hold secrets)
 */
public record KafkaTarget(List<String> bootstrapServers, String topic, Key key, String compression, long lingerMs,
                            Map<String, String> properties) implements Target {

    public static final List<String> COMPRESSIONS = List.of("none", "gzip", "snappy", "lz4", "zstd");
    public static final long DEFAULT_LINGER_MS = 5;
    /** Producer settings Sluice sets itself from the destination's keys; {@code properties} may not name them. */
    public static final Set<String> OWNED_PROPERTIES = Set.of("bootstrap.servers", "key.serializer", "value.serializer",
            "enable.idempotence", "acks", "compression.type", "linger.ms", "delivery.timeout.ms", "request.timeout.ms",
            "max.block.ms", "transactional.id", "retries");
    /** What fills {@code {tenant}} for a hook that has no tenant. */
    public static final String NO_TENANT = "_";

    /** {@code key}: the record key, which picks the partition. */
    public enum Key {
        /** The hook's tenant: one partition per tenant (ordered per (tenant, source)). */
        TENANT,
        /** The hook's source: one partition per source (ordered per (tenant, source)). */
        SOURCE,
        /** The hook's dedupe key; a hook without one has no key. */
        DEDUPE_KEY,
        /** The hook's id: spread evenly, no order. */
        HOOK_ID,
        /** No key: the producer spreads records, no order. */
        NONE;

        public String configName() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** True when every hook of one (tenant, source) gets the same key, so the same partition. */
        public boolean keepsOrigin() {
            return this == TENANT || this == SOURCE;
        }
    }

    public KafkaTarget {
        bootstrapServers = List.copyOf(bootstrapServers);
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(compression, "compression");
        properties = Map.copyOf(properties);
        if (bootstrapServers.isEmpty()) {
            throw new IllegalArgumentException("bootstrap_servers must name at least one broker");
        }
        if (!COMPRESSIONS.contains(compression)) {
            throw new IllegalArgumentException("compression must be one of " + COMPRESSIONS + ", got " + compression);
        }
        if (lingerMs < 0) {
            throw new IllegalArgumentException("linger_ms must be at least 0, got " + lingerMs);
        }
    }

    @Override
    public Kind kind() {
        return Kind.KAFKA;
    }

    /** The topic of a hook of {@code tenant} (null or empty: {@value #NO_TENANT}) and {@code source}. */
    public String topicFor(String tenant, String source) {
        return topic.replace("{tenant}", tenant == null || tenant.isEmpty() ? NO_TENANT : tenant)
                .replace("{source}", source);
    }

    /** Never prints the values of {@code properties}: they may hold passwords. */
    /**
     * The secrets in {@code properties}: the value of every key that names a password, a
     * secret, a token, a key or a JAAS config, and each quoted value inside a JAAS config
     * ({@code password="..."}); and the user info of any bootstrap server written as a URL.
     * The delivery package's {@code SecretRedactor} masks them.
     */
    @Override
    public List<String> secrets() {
        List<String> out = new java.util.ArrayList<>();
        for (Map.Entry<String, String> e : properties.entrySet()) {
            String k = e.getKey().toLowerCase(Locale.ROOT);
            if (SECRET_KEY.matcher(k).find()) {
                out.add(e.getValue());
                java.util.regex.Matcher m = QUOTED.matcher(e.getValue());
                while (m.find()) {
                    out.add(m.group(1));
                }
            }
        }
        bootstrapServers.forEach(s -> out.addAll(Target.userInfoSecrets(s)));
        return out;
    }

    private static final java.util.regex.Pattern SECRET_KEY =
            java.util.regex.Pattern.compile("password|secret|token|jaas|key|credential|sasl\\.oauthbearer");
    private static final java.util.regex.Pattern QUOTED = java.util.regex.Pattern.compile("\"([^\"]*)\"");

    @Override
    public String toString() {
        return "kafka " + String.join(",", bootstrapServers) + " topic=" + topic + " key=" + key.configName()
                + " compression=" + compression + " linger_ms=" + lingerMs + " properties=" + properties.keySet().stream().sorted().toList();
    }
}
