package org.sluice.edge.config;

import java.math.BigInteger;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.sluice.core.Limit;
import org.sluice.edge.delivery.BreakerSettings;
import org.sluice.edge.delivery.BrokerSettings;
import org.sluice.edge.delivery.Destination;
import org.sluice.edge.delivery.Ordering;
import org.sluice.edge.delivery.OutboundHeaders;
import org.sluice.edge.delivery.RetryPolicy;
import org.sluice.edge.delivery.SettingsException;
import org.sluice.edge.delivery.WebhookSigner;
import org.sluice.edge.settings.Paths;
import org.sluice.edge.settings.Section;
import org.sluice.edge.settings.Values;

/**
 * Reads {@code destinations:} into validated {@link Destination}s. The delivery package
 * judges its own settings (retry, breaker, headers, the signing secret) and throws
 * {@link SettingsException}; every such problem is recorded here with its key path, next
 * to the shape problems found while reading.
 */
final class DestinationReader {

    /** A destination name. */
    static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,64}");
    static final String NAME_RULE = "1 to 64 characters from A-Z a-z 0-9 _ -";

    /** The keys every destination type has. */
    static final List<String> COMMON_KEYS = List.of("type", "timeout_ms", "max_in_flight", "rate", "forward_headers",
            "ordering", "retry", "breaker");
    /** The keys of an {@code http} destination: the common ones and its own. */
    static final List<String> KEYS = List.of("type", "url", "timeout_ms", "max_in_flight", "rate", "signing",
            "headers", "forward_headers", "ordering", "retry", "breaker", "ca_file");
    static final List<String> SIGNING = List.of("scheme", "secret");
    static final List<String> RETRY = List.of("initial_ms", "max_ms", "max_attempts", "max_age_seconds",
            "permanent_statuses");
    static final List<String> BREAKER = List.of("failures", "open_ms", "max_open_ms");
    /** The known keys per {@code type}. */
    static final Map<String, List<String>> TYPE_KEYS = Map.of(Destination.TYPE_HTTP, KEYS,
            Destination.TYPE_NATS, brokerKeys(NatsReader.OWN_KEYS),
            Destination.TYPE_KAFKA, brokerKeys(KafkaReader.KEYS));
    static final List<String> DEFAULT_FORWARD_HEADERS = List.of("Content-Type");
    static final long MAX_TIMEOUT_MS = 3_600_000;
    static final int MAX_IN_FLIGHT = 10_000;
    static final String SIGNING_SCHEME = "standard_webhooks";

    private DestinationReader() {
    }

    /** A broker type's keys: the common ones, then its own. */
    static List<String> brokerKeys(List<String> own) {
        List<String> all = new ArrayList<>(COMMON_KEYS);
        all.addAll(own);
        return List.copyOf(all);
    }

    static Map<String, Destination> read(Section root, long maxBodyBytes) {
        Map<String, Destination> out = new LinkedHashMap<>();
        Map<String, Object> entries = root.entries("destinations");
        if (entries == null) {
            return out;
        }
        for (Map.Entry<String, Object> e : entries.entrySet()) {
            String name = e.getKey();
            String path = Paths.child("destinations", name);
            if (!NAME.matcher(name).matches()) {
                root.problem("destinations has an invalid destination name " + Values.quote(name)
                        + ": a destination name is " + NAME_RULE);
                continue;
            }
            if (e.getValue() == null) {
                root.problem(path + " must be a mapping with at least url, got null");
                continue;
            }
            int before = root.problems().size();
            Object type = e.getValue() instanceof Map<?, ?> m ? m.get("type") : null;
            // an unknown type is reported by itself, not as a crowd of unknown keys
            List<String> known = TYPE_KEYS.getOrDefault(type == null ? Destination.TYPE_HTTP : type,
                    e.getValue() instanceof Map<?, ?> m ? m.keySet().stream().map(String::valueOf).toList() : KEYS);
            Section s = Section.of(root.problems(), path, e.getValue(), known);
            Destination d = destination(s, name, maxBodyBytes);
            if (root.problems().size() == before && d != null) {
                out.put(name, d);
            }
        }
        return out;
    }

    private static Destination destination(Section s, String name, long maxBodyBytes) {
        String type = Destination.TYPE_HTTP;
        if (s.has("type")) {
            String t = Values.string(s.raw("type"));
            if (t == null || !Destination.TYPES.contains(t)) {
                s.problem(s.pathOf("type") + " must be one of " + String.join(", ", Destination.TYPES) + ", got "
                        + Values.render(s.raw("type")));
                return null;
            }
            type = t;
        }
        long timeoutMs = s.integer("timeout_ms", Destination.DEFAULT_TIMEOUT_MS, 1L, MAX_TIMEOUT_MS);
        int maxInFlight = s.integer("max_in_flight", Destination.DEFAULT_MAX_IN_FLIGHT, 1, MAX_IN_FLIGHT);
        Optional<Limit> rate = LimitReader.read(s.problems(), s.pathOf("rate"), s.raw("rate"), maxBodyBytes,
                LimitReader.RATE_AND_BURST);
        Ordering ordering = s.choice("ordering", Ordering.NONE, Ordering.values(), Ordering::configName);
        List<String> forward = forwardHeaders(s);
        RetryPolicy retry = retry(s);
        BreakerSettings breaker = breaker(s);
        if (!Destination.TYPE_HTTP.equals(type)) {
            Optional<BrokerSettings> broker = broker(type, s);
            OutboundHeaders outbound = outbound(s, forward, Map.of(), Optional.empty());
            if (broker == null || outbound == null || retry == null || breaker == null) {
                return null;
            }
            return new Destination(name, type, null, timeoutMs, maxInFlight, rate, Optional.empty(), outbound,
                    ordering, retry, breaker, Optional.empty(), broker);
        }
        URI url = url(s);
        Optional<WebhookSigner> signer = s.has("signing") ? signer(s.section("signing", SIGNING)) : Optional.empty();
        Map<String, String> headers = headers(s);
        Optional<Path> caFile = caFile(s, url);
        OutboundHeaders outbound = outbound(s, forward, headers, signer);
        if (url == null || outbound == null || retry == null || breaker == null || caFile == null) {
            return null;
        }
        return new Destination(name, type, url, timeoutMs, maxInFlight, rate, signer, outbound, ordering, retry,
                breaker, caFile.filter(p -> !p.toString().isEmpty()));
    }

    /**
     * The settings of a broker {@code type}, read from its own keys; null after recording
     * a problem.
     */
    private static Optional<BrokerSettings> broker(String type, Section s) {
        switch (type) {
            case Destination.TYPE_NATS:
                return NatsReader.read(s);
            case Destination.TYPE_KAFKA:
                return KafkaReader.read(s);
            default:
                s.problem(s.pathOf("type") + ": no reader for type " + type);
                return null;
        }
    }

    private static OutboundHeaders outbound(Section s, List<String> forward, Map<String, String> headers,
                                            Optional<WebhookSigner> signer) {
        if (forward == null || headers == null) {
            return null;
        }
        try {
            return OutboundHeaders.of(s.path(), forward, headers, signer.orElse(null), version());
        } catch (SettingsException bad) {
            bad.errors().forEach(s::problem);
            return null;
        }
    }

    private static URI url(Section s) {
        String at = s.pathOf("url");
        if (!s.has("url")) {
            s.problem(at + " is required: where attempts are POSTed, http://host:port/path or https://...");
            return null;
        }
        String text = Values.string(s.raw("url"));
        String why = null;
        URI uri = null;
        if (text == null) {
            why = "a string";
        } else {
            try {
                uri = new URI(text);
                String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
                if (!scheme.equals("http") && !scheme.equals("https")) {
                    why = "an http or https URL";
                } else if (uri.getHost() == null || uri.getHost().isEmpty()) {
                    why = "an absolute URL with a host";
                } else if (uri.getRawUserInfo() != null) {
                    why = "a URL without user info (put credentials in headers)";
                } else if (uri.getRawFragment() != null) {
                    why = "a URL without a fragment";
                } else if (uri.getPort() > 65_535) {
                    why = "a URL with a port from 1 to 65535";
                }
            } catch (URISyntaxException bad) {
                why = "a valid URL";
            }
        }
        if (why != null) {
            s.problem(at + " must be " + why + ", got " + Values.render(s.raw("url")));
            return null;
        }
        return uri;
    }

    private static Optional<WebhookSigner> signer(Section g) {
        String scheme = Values.string(g.raw("scheme"));
        if (!g.has("scheme") || !SIGNING_SCHEME.equals(scheme)) {
            g.problem(g.pathOf("scheme") + " must be " + SIGNING_SCHEME + ", got " + Values.render(g.raw("scheme")));
        }
        if (!g.has("secret")) {
            g.problem(g.pathOf("secret") + " is required: whsec_ followed by the base64 of the key");
            return Optional.empty();
        }
        try {
            return Optional.of(WebhookSigner.fromSecret(g.pathOf("secret"), Values.string(g.raw("secret"))));
        } catch (SettingsException bad) {
            bad.errors().forEach(g::problem);
            return Optional.empty();
        }
    }

    private static List<String> forwardHeaders(Section s) {
        if (!s.has("forward_headers")) {
            return DEFAULT_FORWARD_HEADERS;
        }
        List<?> raw = s.list("forward_headers");
        if (raw == null) {
            return null;
        }
        List<String> out = new ArrayList<>();
        boolean ok = true;
        for (int i = 0; i < raw.size(); i++) {
            String name = Values.string(raw.get(i));
            if (name == null) {
                s.problem(Paths.index(s.pathOf("forward_headers"), i) + " must be a header name, got "
                        + Values.render(raw.get(i)));
                ok = false;
            } else {
                out.add(name);
            }
        }
        return ok ? out : null;
    }

    private static Map<String, String> headers(Section s) {
        Map<String, String> out = new LinkedHashMap<>();
        if (!s.has("headers")) {
            return out;
        }
        Map<String, Object> raw = s.entries("headers");
        if (raw == null) {
            return null;
        }
        boolean ok = true;
        for (Map.Entry<String, Object> e : raw.entrySet()) {
            Object v = e.getValue();
            String value = Values.string(v);
            if (value == null && (v instanceof Number || v instanceof Boolean)) {
                value = v.toString();
            }
            if (value == null) {
                // never print it: configured headers often carry credentials
                s.problem(Paths.child(s.pathOf("headers"), e.getKey()) + " must be a string header value, got "
                        + (v == null ? "null" : "a " + (v instanceof Map ? "mapping" : v instanceof List ? "list" : "value")));
                ok = false;
            } else {
                out.put(e.getKey(), value);
            }
        }
        return ok ? out : null;
    }

    private static RetryPolicy retry(Section s) {
        RetryPolicy d = RetryPolicy.defaults();
        if (!s.has("retry")) {
            return d;
        }
        Section r = s.section("retry", RETRY);
        int before = r.problems().size();
        long initial = wide(r, "initial_ms", d.initialMs());
        long max = wide(r, "max_ms", d.maxMs());
        long attempts = wide(r, "max_attempts", d.maxAttempts());
        long age = wide(r, "max_age_seconds", d.maxAgeMillis() / 1000);
        List<Integer> statuses = RetryPolicy.DEFAULT_PERMANENT_STATUSES;
        if (r.has("permanent_statuses")) {
            List<?> raw = r.list("permanent_statuses");
            statuses = new ArrayList<>();
            if (raw != null) {
                for (int i = 0; i < raw.size(); i++) {
                    BigInteger b = Values.integer(raw.get(i));
                    if (b == null || b.bitLength() > 31) {
                        r.problem(Paths.index(r.pathOf("permanent_statuses"), i) + " must be an HTTP status, got "
                                + Values.render(raw.get(i)));
                    } else {
                        statuses.add(b.intValue());
                    }
                }
            }
        }
        if (r.problems().size() != before) {
            return null;
        }
        try {
            return RetryPolicy.of(s.path(), initial, max, attempts, age, statuses);
        } catch (SettingsException bad) {
            bad.errors().forEach(r::problem);
            return null;
        }
    }

    private static BreakerSettings breaker(Section s) {
        BreakerSettings d = BreakerSettings.defaults();
        if (!s.has("breaker")) {
            return d;
        }
        Section b = s.section("breaker", BREAKER);
        int before = b.problems().size();
        long failures = wide(b, "failures", d.failures());
        long open = wide(b, "open_ms", d.openMs());
        long maxOpen = wide(b, "max_open_ms", d.maxOpenMs());
        if (b.problems().size() != before) {
            return null;
        }
        try {
            return BreakerSettings.of(s.path(), failures, open, maxOpen);
        } catch (SettingsException bad) {
            bad.errors().forEach(b::problem);
            return null;
        }
    }

    /** Any integer that fits a long; the delivery package judges the range with its own message. */
    private static long wide(Section s, String key, long def) {
        return s.integer(key, def, Long.MIN_VALUE, Long.MAX_VALUE);
    }

    /** Empty optional holding an empty path: absent; null: a problem was recorded. */
    private static Optional<Path> caFile(Section s, URI url) {
        if (!s.has("ca_file")) {
            return Optional.of(Path.of(""));
        }
        String at = s.pathOf("ca_file");
        String text = Values.string(s.raw("ca_file"));
        Path p = null;
        if (text != null && !text.isBlank()) {
            try {
                p = Path.of(text);
            } catch (InvalidPathException bad) {
                p = null;
            }
        }
        if (p == null) {
            s.problem(at + " must be a file system path, got " + Values.render(s.raw("ca_file")));
            return null;
        }
        if (url != null && !"https".equalsIgnoreCase(url.getScheme())) {
            s.problem(at + " applies only to an https url, got " + Values.render(s.raw("ca_file")) + " for "
                    + Values.quote(url.toString()));
            return null;
        }
        if (!Files.isRegularFile(p) || !Files.isReadable(p)) {
            s.problem(at + " must be a readable file of PEM certificates, got " + Values.render(s.raw("ca_file"))
                    + " (" + (Files.exists(p) ? "not a readable regular file" : "no such file") + ")");
            return null;
        }
        return Optional.of(p);
    }

    /** Sluice's version for {@code user-agent}: the jar's, or {@code dev} when run from classes. */
    static String version() {
        String v = DestinationReader.class.getPackage().getImplementationVersion();
        return v == null ? "dev" : v;
    }
}
