package org.sluice.edge.delivery.http;

import org.sluice.edge.delivery.OutboundHeaders;
import org.sluice.edge.route.Transform;
import org.sluice.edge.route.TransformReader;

import org.sluice.edge.delivery.targets.HttpTarget;
import org.sluice.edge.delivery.targets.Target;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.sluice.edge.delivery.SettingsException;
import org.sluice.edge.delivery.SigningKey;
import org.sluice.edge.delivery.TargetReader;
import org.sluice.edge.delivery.WebhookSigner;
import org.sluice.edge.settings.FilePaths;
import org.sluice.edge.settings.Paths;
import org.sluice.edge.settings.Section;
import org.sluice.edge.settings.Values;
import org.sluice.edge.verify.Verifiers;

/**
 * Reads the own keys of a {@code type: http} destination into {@link HttpTarget}:
 * {@code url} (required), {@code signing}, {@code headers} and {@code ca_file}. Every
 * problem names its key path and the value (a secret or a configured header value is
 * described, never printed).
 */
public final class HttpReader implements TargetReader {

    /** Every key of an {@code http} destination: the common ones and its own, in the order messages list them. */
    public static final List<String> KEYS = List.of("type", "url", "timeout_ms", "max_in_flight", "rate", "signing",
            "headers", "forward_headers", "ordering", "retry", "breaker", "disable_after", "ca_file", "transform");
    public static final List<String> SIGNING = List.of("scheme", "secret", "secrets", "ed25519_key", "ed25519_key_file",
            "id_header", "timestamp_header", "signature_header");
    static final String SIGNING_SCHEME = "standard_webhooks";
    /** Largest {@code ed25519_key_file} read: a PEM Ed25519 key is about 120 bytes. */
    static final long MAX_KEY_FILE_BYTES = 64 * 1024;

    @Override
    public Target.Kind kind() {
        return Target.Kind.HTTP;
    }

    @Override
    public List<String> keys() {
        return KEYS;
    }

    @Override
    public Read read(Section s, List<String> forward) {
        URI url = url(s);
        Optional<WebhookSigner> signer = s.has("signing") ? signer(s.section("signing", SIGNING)) : Optional.empty();
        Map<String, String> headers = headers(s);
        Optional<Path> caFile = caFile(s, url);
        HttpTarget target = url == null || caFile == null ? null
                : new HttpTarget(url, caFile.filter(p -> !p.toString().isEmpty()));
        Optional<Transform> transform = s.has("transform") ? transform(s) : Optional.empty();
        return new Read(target, TargetReader.headers(s, forward, headers, signer.orElse(null)), transform);
    }

    /** {@code transform}, its headers checked against those Sluice sets itself. */
    private static Optional<Transform> transform(Section s) {
        Transform t = TransformReader.read(s.raw("transform"), s.pathOf("transform"), s.problems());
        if (t == null) {
            return Optional.empty();
        }
        for (String name : t.headerNames()) {
            if (OutboundHeaders.RESERVED.contains(name)) {
                s.problem(Paths.child(Paths.child(s.pathOf("transform"), "headers"), name) + " is a header Sluice sets"
                        + " itself or one that frames the message: it cannot be set (reserved: "
                        + String.join(", ", OutboundHeaders.RESERVED.stream().sorted().toList()) + ")");
                return Optional.empty();
            }
        }
        return Optional.of(t);
    }

    private static URI url(Section s) {
        if (!s.required("url", "where attempts are POSTed, http://host:port/path or https://...")) {
            return null;
        }
        String at = s.pathOf("url");
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
        boolean ed25519 = g.has("ed25519_key") || g.has("ed25519_key_file");
        if ((g.has("secret") && g.has("secrets")) || (!ed25519 && !g.has("secret") && !g.has("secrets"))) {
            g.problem(g.pathOf("secret") + (g.has("secret") ? " and secrets are both set: write one"
                    : " is required: whsec_ followed by the base64 of the key (or secrets: a list of them, while rotating;"
                    + " or ed25519_key / ed25519_key_file for v1a signatures)"));
            return Optional.empty();
        }
        List<SigningKey> keys = new ArrayList<>();
        try {
            if (g.has("secret")) {
                keys.add(SigningKey.Hmac.parse(g.pathOf("secret"), Values.string(g.raw("secret"))));
            } else if (g.has("secrets") && g.raw("secrets") instanceof List<?> list) {
                keys.addAll(WebhookSigner.hmacKeys(g.pathOf("secrets"), list.stream().map(Values::string).toList()));
            } else if (g.has("secrets")) {
                g.problem(g.pathOf("secrets") + " must be a list of whsec_ secrets, got " + Values.renderSecret(g.raw("secrets")));
                return Optional.empty();
            }
        } catch (SettingsException bad) {
            bad.errors().forEach(g::problem);
            return Optional.empty();
        }
        SigningKey.Ed25519 edKey = ed25519 ? ed25519Key(g) : null;
        if (ed25519 && edKey == null) {
            return Optional.empty();
        }
        if (edKey != null) {
            keys.add(edKey);
        }
        if (keys.size() > WebhookSigner.MAX_SECRETS) {
            g.problem(g.path() + " must hold at most " + WebhookSigner.MAX_SECRETS + " keys, got " + keys.size());
            return Optional.empty();
        }
        WebhookSigner signer = WebhookSigner.of(keys);
        String id = headerName(g, "id_header", OutboundHeaders.WEBHOOK_ID);
        String timestamp = headerName(g, "timestamp_header", OutboundHeaders.WEBHOOK_TIMESTAMP);
        String signature = headerName(g, "signature_header", OutboundHeaders.WEBHOOK_SIGNATURE);
        if (id == null || timestamp == null || signature == null) {
            return Optional.empty();
        }
        if (id.equals(timestamp) || id.equals(signature) || timestamp.equals(signature)) {
            g.problem(g.path() + " must send id, timestamp and signature under three different names, got "
                    + id + ", " + timestamp + ", " + signature);
            return Optional.empty();
        }
        return Optional.of(signer.withHeaderNames(id, timestamp, signature));
    }

    /**
     * The Ed25519 key of {@code ed25519_key} ({@code whsk_...}) or {@code ed25519_key_file}
     * (a PKCS#8 PEM file, or one holding a {@code whsk_} line); null after a problem.
     */
    private static SigningKey.Ed25519 ed25519Key(Section g) {
        if (g.has("ed25519_key") && g.has("ed25519_key_file")) {
            g.problem(g.pathOf("ed25519_key") + " and ed25519_key_file are both set: write one");
            return null;
        }
        try {
            if (g.has("ed25519_key")) {
                return SigningKey.Ed25519.parse(g.pathOf("ed25519_key"), Values.string(g.raw("ed25519_key")));
            }
            String at = g.pathOf("ed25519_key_file");
            Path p = FilePaths.of(g.raw("ed25519_key_file"));
            String why = p == null ? null : FilePaths.unreadable(p);
            if (p == null || why != null) {
                g.problem(at + " must be a readable file holding an Ed25519 private key, got "
                        + Values.render(g.raw("ed25519_key_file")) + (why == null ? "" : " (" + why + ")"));
                return null;
            }
            String text;
            try {
                if (Files.size(p) > MAX_KEY_FILE_BYTES) {
                    g.problem(at + " must be a key file of at most " + MAX_KEY_FILE_BYTES + " bytes, got "
                            + Values.render(g.raw("ed25519_key_file")) + " (" + Files.size(p) + " bytes)");
                    return null;
                }
                text = Files.readString(p, java.nio.charset.StandardCharsets.US_ASCII);
            } catch (java.io.IOException e) {
                g.problem(at + " must be a readable ASCII file holding an Ed25519 private key, got "
                        + Values.render(g.raw("ed25519_key_file")) + " (" + e.getClass().getSimpleName() + ")");
                return null;
            }
            return SigningKey.Ed25519.fromFile(at, text);
        } catch (SettingsException bad) {
            bad.errors().forEach(g::problem);
            return null;
        }
    }

    /**
     * A signing header's name ({@code id_header} and the like): a token, lower-cased, that is
     * not a name Sluice sets otherwise or that frames the message; {@code standard} when
     * absent; null after a problem.
     */
    private static String headerName(Section g, String key, String standard) {
        if (!g.has(key)) {
            return standard;
        }
        String name = Values.string(g.raw(key));
        if (name == null || !Verifiers.isHeaderName(name)) {
            g.problem(g.pathOf(key) + " must be a header name (letters, digits and !#$%&'*+-.^_`|~), got "
                    + Values.render(g.raw(key)));
            return null;
        }
        String lower = name.toLowerCase(Locale.ROOT);
        if (OutboundHeaders.RESERVED.contains(lower) && !lower.equals(standard)) {
            g.problem(g.pathOf(key) + " must not name a header that Sluice sets itself or that frames the request, got "
                    + Values.quote(name));
            return null;
        }
        return lower;
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

    /** Empty optional holding an empty path: absent; null: a problem was recorded. */
    private static Optional<Path> caFile(Section s, URI url) {
        if (!s.has("ca_file")) {
            return Optional.of(Path.of(""));
        }
        String at = s.pathOf("ca_file");
        Path p = FilePaths.of(s.raw("ca_file"));
        if (p == null) {
            s.problem(at + " must be a file system path, got " + Values.render(s.raw("ca_file")));
            return null;
        }
        if (url != null && !"https".equalsIgnoreCase(url.getScheme())) {
            s.problem(at + " applies only to an https url, got " + Values.render(s.raw("ca_file")) + " for "
                    + Values.quote(url.toString()));
            return null;
        }
        String why = FilePaths.unreadable(p);
        if (why != null) {
            s.problem(at + " must be a readable file of PEM certificates, got " + Values.render(s.raw("ca_file"))
                    + " (" + why + ")");
            return null;
        }
        return Optional.of(p);
    }
}
