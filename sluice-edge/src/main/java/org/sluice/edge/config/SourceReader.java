package org.sluice.edge.config;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.sluice.edge.dedupe.DedupeSpec;
import org.sluice.edge.route.EventType;
import org.sluice.edge.route.Filter;
import org.sluice.edge.route.FilterReader;
import org.sluice.edge.settings.Paths;
import org.sluice.edge.settings.Section;
import org.sluice.edge.settings.Substituted;
import org.sluice.edge.settings.Values;
import org.sluice.edge.verify.Verifiers;
import org.sluice.edge.verify.VerifySpec;

/** Reads {@code sources:}: ids, owners, {@code verify} blocks and {@code dedupe} settings. */
final class SourceReader {

    /** A source id (a tenant id follows {@link TenantId}). */
    static final Pattern ID = Pattern.compile("[A-Za-z0-9_-]{1,64}");
    static final String ID_RULE = "1 to 64 characters from A-Z a-z 0-9 _ -";

    static final List<String> SOURCE_KEYS = List.of("tenant", "verify", "dedupe", "bytes_per_second", "deliver_to",
            "store_headers", "event_type");
    static final List<String> DELIVER_TO_ENTRY = List.of("destination", "when");
    static final List<String> VERIFY_KEYS = List.of("scheme", "secrets", "tolerance_seconds",
            "header", "prefix", "algorithm", "encoding");
    static final List<String> SCHEMES = Verifiers.SCHEMES;
    static final List<String> TIMESTAMPED = List.of("stripe", "slack", "standard_webhooks");
    static final List<String> HMAC_ONLY = List.of("header", "prefix", "algorithm", "encoding");
    static final List<String> ALGORITHMS = List.of("sha256", "sha512", "sha1");
    static final List<String> ENCODINGS = List.of("hex", "base64");
    static final int MAX_SECRETS = Verifiers.MAX_SECRETS;
    static final int DEFAULT_TOLERANCE_SECONDS = Verifiers.DEFAULT_TOLERANCE_SECONDS;
    static final int MAX_TOLERANCE_SECONDS = 86_400;

    private static final String DEDUPE_SHAPES =
            "github, standard_webhooks, svix, shopify, stripe, body_sha256, none, {header: NAME} or {json: a.b}";

    private SourceReader() {
    }

    /**
     * @param destinations      the names of the valid destinations
     * @param namedDestinations every name written under {@code destinations} (valid or not), so
     *                          that a bad destination is reported once, not again per source
     */
    static Map<String, SourceConfig> read(Section root, long defaultBytesPerSecond, Set<String> destinations,
                                          Set<String> namedDestinations) {
        Map<String, SourceConfig> out = new LinkedHashMap<>();
        for (Map.Entry<String, Object> e : root.entries("sources").entrySet()) {
            String id = e.getKey();
            String path = Paths.child("sources", id);
            if (!ID.matcher(id).matches()) {
                root.problem("sources has an invalid source id " + Values.quote(id) + ": a source id is " + ID_RULE);
                continue;
            }
            int before = root.problems().size();
            Section s = Section.of(root.problems(), path, e.getValue(), SOURCE_KEYS);
            if (e.getValue() == null) {
                s.problem(path + " must be a mapping with at least verify, got null");
                continue;
            }
            Optional<String> tenant = Optional.empty();
            if (s.has("tenant")) {
                String t = s.string("tenant", null);
                if (t != null && !TenantId.valid(t)) {
                    s.problem(s.pathOf("tenant") + " must be a tenant id of " + TenantId.RULE + ", got "
                            + Values.render(s.raw("tenant")));
                } else if (t != null) {
                    tenant = Optional.of(t);
                }
            }
            VerifySpec verify = null;
            if (!s.has("verify")) {
                s.problem(s.pathOf("verify") + " is required (write {scheme: none} to accept unsigned hooks)");
            } else {
                verify = verify(s.section("verify", VERIFY_KEYS));
            }
            DedupeSpec dedupe = dedupe(s, s.raw("dedupe"));
            long bytes = s.integer("bytes_per_second", defaultBytesPerSecond, 1L, Long.MAX_VALUE);
            Map<String, Filter> filters = new LinkedHashMap<>();
            List<String> deliverTo = deliverTo(s, destinations, namedDestinations, filters);
            StoreHeaders storeHeaders = storeHeaders(s);
            EventType eventType = s.has("event_type") ? EventType.read(s.raw("event_type"), s.pathOf("event_type"), s.problems())
                    : EventType.defaultFor(verify == null ? null : verify.scheme());
            if (root.problems().size() == before && verify != null && dedupe != null && eventType != null) {
                out.put(id, new SourceConfig(id, tenant, verify, dedupe, bytes, deliverTo, filters, storeHeaders,
                        eventType));
            }
        }
        return out;
    }

    /** {@code needed} (the default), {@code all}, or a list of header names stored besides the needed ones. */
    private static StoreHeaders storeHeaders(Section s) {
        if (!s.has("store_headers")) {
            return StoreHeaders.NEEDED;
        }
        String at = s.pathOf("store_headers");
        Object raw = s.raw("store_headers");
        String word = Values.string(raw);
        if ("all".equals(word)) {
            return StoreHeaders.ALL;
        }
        if ("needed".equals(word)) {
            return StoreHeaders.NEEDED;
        }
        if (!(raw instanceof List<?> list)) {
            s.problem(at + " must be needed, all or a list of header names, got " + Values.render(raw));
            return StoreHeaders.NEEDED;
        }
        List<String> names = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            String name = Values.string(list.get(i));
            if (name == null || !Verifiers.isHeaderName(name)) {
                s.problem(Paths.index(at, i) + " must be a header name (letters, digits and !#$%&'*+-.^_`|~), got "
                        + Values.render(list.get(i)));
            } else {
                names.add(name);
            }
        }
        return new StoreHeaders(false, names);
    }

    /**
     * {@code deliver_to}: each entry a destination name (every hook) or
     * {@code {destination: NAME, when: FILTER}} (the hooks that pass); the filters go to {@code filters}.
     */
    private static List<String> deliverTo(Section s, Set<String> destinations, Set<String> named,
                                          Map<String, Filter> filters) {
        if (!s.has("deliver_to")) {
            return List.of();
        }
        String path = s.pathOf("deliver_to");
        List<?> raw = s.list("deliver_to");
        if (raw == null) {
            return List.of();
        }
        List<String> out = new ArrayList<>();
        for (int i = 0; i < raw.size(); i++) {
            Object item = raw.get(i);
            String at = Paths.index(path, i);
            String name = Values.string(item);
            Filter when = null;
            if (item instanceof Map<?, ?>) {
                Section entry = Section.of(s.problems(), at, item, DELIVER_TO_ENTRY);
                name = entry.has("destination") ? entry.string("destination", null) : null;
                if (!entry.required("destination", "the destination this entry delivers to")) {
                    continue;
                }
                if (!entry.has("when")) {
                    s.problem(entry.pathOf("when") + " is required in the mapping form (write the plain name "
                            + "to deliver every hook)");
                    continue;
                }
                when = FilterReader.read(entry.raw("when"), entry.pathOf("when"), s.problems());
                if (name == null || when == null) {
                    continue; // reported
                }
                at = entry.pathOf("destination");
            }
            if (name == null) {
                s.problem(at + " must be a destination name or {destination: NAME, when: FILTER}, got " + Values.render(item));
            } else if (out.contains(name)) {
                s.problem(at + " names destination " + Values.quote(name) + " twice");
            } else if (!destinations.contains(name)) {
                if (!named.contains(name)) {
                    s.problem(at + " names no configured destination: got " + Values.render(when == null ? item : name)
                            + (destinations.isEmpty() ? " (no destinations are configured)"
                                    : ", configured: " + String.join(", ", destinations)));
                }
                // a destination that is named but invalid has its own message already
            } else {
                out.add(name);
                if (when != null) {
                    filters.put(name, when);
                }
            }
        }
        return out;
    }

    // ------------------------------------------------------------------ verify

    private static VerifySpec verify(Section v) {
        if (!v.required("scheme", "one of " + String.join(", ", SCHEMES))) {
            return null;
        }
        String scheme = Values.string(v.raw("scheme"));
        if (scheme == null || !SCHEMES.contains(scheme)) {
            v.problem(v.pathOf("scheme") + " must be one of " + String.join(", ", SCHEMES) + ", got " + Values.render(v.raw("scheme")));
            return null;
        }
        int before = v.problems().size();
        List<String> secrets = secrets(v, scheme);
        int tolerance = DEFAULT_TOLERANCE_SECONDS;
        if (v.has("tolerance_seconds")) {
            if (TIMESTAMPED.contains(scheme)) {
                tolerance = v.integer("tolerance_seconds", DEFAULT_TOLERANCE_SECONDS, 1, MAX_TOLERANCE_SECONDS);
            } else {
                v.problem(v.pathOf("tolerance_seconds") + " applies only to the timestamped schemes "
                        + String.join(", ", TIMESTAMPED) + ", not " + scheme);
            }
        }
        String header = null;
        String prefix = null;
        String algorithm = null;
        String encoding = null;
        if (scheme.equals("hmac")) {
            if (!v.has("header")) {
                v.problem(v.pathOf("header") + " is required for scheme hmac: the header that carries the signature");
            } else {
                header = v.string("header", null);
                if (header != null && !Verifiers.isHeaderName(header)) {
                    v.problem(v.pathOf("header") + " must be an HTTP header name, got " + Values.render(v.raw("header")));
                }
            }
            prefix = v.string("prefix", "");
            algorithm = oneOf(v, "algorithm", "sha256", ALGORITHMS);
            encoding = oneOf(v, "encoding", "hex", ENCODINGS);
        } else {
            for (String key : HMAC_ONLY) {
                if (v.has(key)) {
                    v.problem(v.pathOf(key) + " applies only to scheme hmac, not " + scheme);
                }
            }
        }
        if (v.problems().size() != before) {
            return null;
        }
        VerifySpec spec = new VerifySpec(scheme, secrets, tolerance, header, prefix, algorithm, encoding);
        return VerifierCheck.check(v, spec) ? spec : null;
    }

    private static List<String> secrets(Section v, String scheme) {
        String path = v.pathOf("secrets");
        if (scheme.equals("none")) {
            if (v.has("secrets")) {
                v.problem(path + " must be absent for scheme none (it checks no signature)");
            }
            return List.of();
        }
        if (!v.has("secrets")) {
            v.problem(path + " is required for scheme " + scheme + ": a list of 1 to " + MAX_SECRETS + " secrets");
            return List.of();
        }
        List<?> raw = v.list("secrets");
        if (raw == null) {
            return List.of();
        }
        if (raw.isEmpty() || raw.size() > MAX_SECRETS) {
            v.problem(path + " must list 1 to " + MAX_SECRETS + " secrets, got " + raw.size());
            return List.of();
        }
        List<String> out = new ArrayList<>();
        for (int i = 0; i < raw.size(); i++) {
            Object item = raw.get(i);
            String at = Paths.index(path, i);
            String s = Values.string(item);
            if (s == null) {
                v.problem(at + " must be a string, got " + (item instanceof Number || item instanceof Boolean
                        ? Values.renderSecret(item.toString()) : Values.render(item)));
            } else if (s.isEmpty()) {
                v.problem(at + " must not be empty" + (item instanceof Substituted sub ? ", got \"\" from " + sub.expression() : ""));
            } else {
                out.add(s);
            }
        }
        return out;
    }

    private static String oneOf(Section v, String key, String def, List<String> allowed) {
        if (!v.has(key)) {
            return def;
        }
        String s = Values.string(v.raw(key));
        if (s == null || !allowed.contains(s)) {
            v.problem(v.pathOf(key) + " must be one of " + String.join(", ", allowed) + ", got " + Values.render(v.raw(key)));
            return def;
        }
        return s;
    }

    // ------------------------------------------------------------------ dedupe

    @SuppressWarnings("unchecked")
    private static DedupeSpec dedupe(Section s, Object raw) {
        String path = s.pathOf("dedupe");
        if (raw == null) {
            return DedupeSpec.NONE;
        }
        String name = Values.string(raw);
        if (name != null) {
            DedupeSpec.Kind kind = switch (name) {
                case "github" -> DedupeSpec.Kind.GITHUB;
                case "standard_webhooks" -> DedupeSpec.Kind.STANDARD_WEBHOOKS;
                case "svix" -> DedupeSpec.Kind.SVIX;
                case "shopify" -> DedupeSpec.Kind.SHOPIFY;
                case "stripe" -> DedupeSpec.Kind.STRIPE;
                case "body_sha256" -> DedupeSpec.Kind.BODY_SHA256;
                case "none" -> DedupeSpec.Kind.NONE;
                default -> null;
            };
            if (kind == null) {
                s.problem(path + " must be one of " + DEDUPE_SHAPES + ", got " + Values.render(raw));
                return null;
            }
            return kind == DedupeSpec.Kind.NONE ? DedupeSpec.NONE : VerifierCheck.check(s, path, new DedupeSpec(kind, null));
        }
        if (!(raw instanceof Map<?, ?> m) || m.size() != 1) {
            s.problem(path + " must be one of " + DEDUPE_SHAPES + ", got " + Values.render(raw));
            return null;
        }
        Map.Entry<String, Object> only = ((Map<String, Object>) m).entrySet().iterator().next();
        String argPath = Paths.child(path, only.getKey());
        String arg = Values.string(only.getValue());
        switch (only.getKey()) {
            case "header" -> {
                if (arg == null || !Verifiers.isHeaderName(arg)) {
                    s.problem(argPath + " must be an HTTP header name, got " + Values.render(only.getValue()));
                    return null;
                }
                return VerifierCheck.check(s, path, new DedupeSpec(DedupeSpec.Kind.HEADER, arg));
            }
            case "json" -> {
                if (arg == null || arg.isEmpty() || arg.startsWith(".") || arg.endsWith(".") || arg.contains("..")) {
                    s.problem(argPath + " must be a dotted path of JSON object keys such as event.id, got "
                            + Values.render(only.getValue()));
                    return null;
                }
                return VerifierCheck.check(s, path, new DedupeSpec(DedupeSpec.Kind.JSON, arg));
            }
            default -> {
                s.problem(Section.unknownKey(argPath, List.of("header", "json")));
                return null;
            }
        }
    }
}
