package org.sluice.edge.delivery.kafka;

import org.sluice.edge.delivery.targets.KafkaTarget;
import org.sluice.edge.delivery.targets.Target;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.sluice.edge.delivery.Destination;
import org.sluice.edge.delivery.Ordering;
import org.sluice.edge.delivery.broker.BrokerReader;
import org.sluice.edge.settings.Paths;
import org.sluice.edge.settings.Section;
import org.sluice.edge.settings.Values;

/**
 * Reads the own keys of a {@code type: kafka} destination into {@link KafkaTarget};
 * every problem is recorded with its key path and value.
 */
public final class KafkaReader extends BrokerReader {

    /** The keys a kafka destination has of its own. */
    public static final List<String> KEYS = List.of("bootstrap_servers", "topic", "key", "compression", "linger_ms", "properties");
    /** A topic template: Kafka's topic characters and the two placeholders. */
    static final Pattern TOPIC = Pattern.compile("([A-Za-z0-9._-]|\\{tenant\\}|\\{source\\})+");
    static final String TOPIC_RULE = "characters from A-Z a-z 0-9 . _ - and the placeholders {tenant} and {source}";
    /** Kafka's longest topic name. */
    static final int MAX_TOPIC = 249;
    static final long MAX_LINGER_MS = 60_000;
    static final String MAX_IN_FLIGHT_PROPERTY = "max.in.flight.requests.per.connection";

    public KafkaReader() {
        super(Target.Kind.KAFKA, KEYS);
    }

    @Override
    protected Supplier<KafkaTarget> target(Section s) {
        List<String> servers = servers(s);
        String topic = topic(s);
        KafkaTarget.Key key = s.choice("key", KafkaTarget.Key.TENANT, KafkaTarget.Key.values(),
                KafkaTarget.Key::configName);
        String compression = Values.string(s.raw("compression"));
        if (s.has("compression") && (compression == null || !KafkaTarget.COMPRESSIONS.contains(compression))) {
            s.problem(s.pathOf("compression") + " must be one of " + String.join(", ", KafkaTarget.COMPRESSIONS)
                    + ", got " + Values.render(s.raw("compression")));
        }
        long linger = s.integer("linger_ms", KafkaTarget.DEFAULT_LINGER_MS, 0L, MAX_LINGER_MS);
        long timeout = quietTimeout(s);
        if (s.has("linger_ms") && linger >= timeout) {
            s.problem(s.pathOf("linger_ms") + " must be less than timeout_ms (" + timeout + "), got "
                    + Values.render(s.raw("linger_ms")));
        }
        if ("fifo".equals(Values.string(s.raw("ordering"))) && !key.keepsOrigin()) {
            s.problem(s.pathOf("key") + " must be tenant or source when ordering is " + Ordering.FIFO.configName()
                    + " (every hook of a (tenant, source) must go to one partition), got " + Values.render(s.raw("key")));
        }
        Map<String, String> properties = properties(s);
        return () -> new KafkaTarget(servers, topic, key, compression == null ? "none" : compression, linger, properties);
    }

    /**
     * {@code bootstrap_servers} of {@code s}: a non-empty list of host:port, or null after
     * recording a problem (also for the fleet log's {@code store.kafka}).
     */
    public static List<String> servers(Section s) {
        List<?> raw = s.nonEmptyList("bootstrap_servers", "a list of host:port brokers, e.g. [\"127.0.0.1:9092\"]",
                "name at least one broker as host:port");
        if (raw == null) {
            return null;
        }
        String at = s.pathOf("bootstrap_servers");
        List<String> out = new ArrayList<>();
        for (int i = 0; i < raw.size(); i++) {
            String text = Values.string(raw.get(i));
            if (text == null || !hostPort(text)) {
                s.problem(Paths.index(at, i) + " must be host:port with a port from 1 to 65535, got " + Values.render(raw.get(i)));
                return null;
            }
            out.add(text.strip());
        }
        return out;
    }

    private static boolean hostPort(String text) {
        String t = text.strip();
        int colon = t.lastIndexOf(':');
        if (colon <= 0 || colon == t.length() - 1) {
            return false;
        }
        String host = t.substring(0, colon);
        if (host.chars().anyMatch(c -> c <= ' ' || c == '/' || c == ',')) {
            return false;
        }
        try {
            int port = Integer.parseInt(t.substring(colon + 1));
            return port >= 1 && port <= 65_535;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    private static String topic(Section s) {
        if (!s.required("topic", "the topic name, where {tenant} and {source} are filled per hook")) {
            return null;
        }
        String at = s.pathOf("topic");
        String text = Values.string(s.raw("topic"));
        if (text == null || !TOPIC.matcher(text).matches() || text.equals(".") || text.equals("..")) {
            s.problem(at + " must be a topic name of " + TOPIC_RULE + ", got " + Values.render(s.raw("topic")));
            return null;
        }
        // the longest ids fill it: tenant ids and source ids are at most 64 characters
        int longest = text.replace("{tenant}", "x".repeat(64)).replace("{source}", "x".repeat(64)).length();
        if (longest > MAX_TOPIC) {
            s.problem(at + " must stay within Kafka's " + MAX_TOPIC + " characters once {tenant} and {source} are filled"
                    + " (64 each at most), got " + Values.render(s.raw("topic")));
            return null;
        }
        return text;
    }

    /**
     * {@code properties}: name to value, passed to the producer as they are. Values are
     * never printed (they may be passwords); names Sluice sets itself are refused.
     */
    private static Map<String, String> properties(Section s) {
        return properties(s, KafkaTarget.OWNED_PROPERTIES, "use the destination's own keys: bootstrap_servers,"
                + " compression, linger_ms, timeout_ms; idempotence and acks=all are the delivery contract");
    }

    /**
     * {@code properties} of {@code s} (also for the fleet log's {@code store.kafka}): name to
     * value, or null after recording a problem. A name in {@code owned} is refused, with
     * {@code why} in the message; values are never printed.
     */
    public static Map<String, String> properties(Section s, java.util.Set<String> owned, String why) {
        Map<String, String> out = new LinkedHashMap<>();
        if (!s.has("properties")) {
            return out;
        }
        Map<String, Object> raw = s.entries("properties");
        if (!(s.raw("properties") instanceof Map<?, ?>)) {
            return null;
        }
        boolean ok = true;
        for (Map.Entry<String, Object> e : raw.entrySet()) {
            String at = Paths.child(s.pathOf("properties"), e.getKey());
            String name = e.getKey().strip().toLowerCase(Locale.ROOT);
            String value = scalar(e.getValue());
            if (owned.contains(name)) {
                s.problem(at + " is set by Sluice itself (" + why + "), got a value");
                ok = false;
            } else if (value == null) {
                s.problem(at + " must be a string, number or boolean, got "
                        + (e.getValue() == null ? "null" : e.getValue() instanceof Map ? "a mapping" : "a list"));
                ok = false;
            } else if (name.equals(MAX_IN_FLIGHT_PROPERTY) && !inFlightOk(value)) {
                s.problem(at + " must be an integer from 1 to 5 (more would let the idempotent producer reorder), got "
                        + Values.quote(value));
                ok = false;
            } else {
                out.put(e.getKey().strip(), value);
            }
        }
        return ok ? out : null;
    }

    private static boolean inFlightOk(String value) {
        try {
            int n = Integer.parseInt(value.strip());
            return n >= 1 && n <= 5;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    private static String scalar(Object v) {
        String text = Values.string(v);
        if (text != null) {
            return text;
        }
        if (v instanceof BigDecimal d) {
            return d.toPlainString();
        }
        if (v instanceof Number || v instanceof Boolean || v instanceof BigInteger) {
            return v.toString();
        }
        return null;
    }

    /** timeout_ms as the destination reader reads it (its problems are reported there). */
    private static long quietTimeout(Section s) {
        BigInteger b = Values.integer(s.raw("timeout_ms"));
        if (b == null || b.signum() <= 0 || b.bitLength() > 62) {
            return Destination.DEFAULT_TIMEOUT_MS;
        }
        return b.longValue();
    }
}
