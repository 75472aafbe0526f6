package org.sluice.edge.delivery;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
import org.sluice.edge.store.StoredHook;
import org.sluice.edge.verify.HttpTokens;
import org.sluice.edge.verify.Verifiers;

/**
 * The headers of every attempt to one destination, in this order:
 * <ol>
 *   <li>{@code webhook-id}: the hook's id, the same on every attempt;</li>
 *   <li>{@code webhook-timestamp}: epoch seconds of this attempt;</li>
 *   <li>{@code webhook-signature} when the destination signs ({@link WebhookSigner});</li>
 *   <li>{@code sluice-tenant}, {@code sluice-source}, {@code sluice-attempt} (from 1),
 *       {@code user-agent: sluice/<version>};</li>
 *   <li>{@code traceparent} when the hook is traced (the attempt span's, {@code telemetry.*});
 *       it replaces a forwarded or configured one;</li>
 *   <li>the destination's {@code forward_headers}, copied from the received request when
 *       it had them (a value holding CR, LF or NUL is dropped, never sent);</li>
 *   <li>the destination's configured {@code headers}; one with the name of a forwarded
 *       header replaces it.</li>
 * </ol>
 * Names are sent lower-case. Neither list may name a header Sluice sets itself or one that
 * frames the message ({@link #RESERVED}); that is a configuration error naming the key path.
 *
 * <p>A broker record or message carries another list, the same for Kafka and NATS
 * ({@link #forBroker(StoredHook, int, BiConsumer)}): {@code webhook-id}, {@code sluice-tenant}, {@code sluice-source},
 * {@code sluice-received-at} ({@link #RECEIVED_AT_FORMAT}), {@code sluice-attempt},
 * {@code traceparent} when the hook is traced, then the forwarded headers.
 *
 * <p>Immutable and thread-safe.
 */
public final class OutboundHeaders {

    public static final String WEBHOOK_ID = "webhook-id";
    public static final String WEBHOOK_TIMESTAMP = "webhook-timestamp";
    public static final String WEBHOOK_SIGNATURE = "webhook-signature";
    public static final String SLUICE_TENANT = "sluice-tenant";
    public static final String SLUICE_SOURCE = "sluice-source";
    public static final String SLUICE_ATTEMPT = "sluice-attempt";
    /** A broker header: when the hook was received, in {@link #RECEIVED_AT_FORMAT}. */
    public static final String SLUICE_RECEIVED_AT = "sluice-received-at";
    public static final String USER_AGENT = "user-agent";
    /** The W3C trace context of the attempt, when the hook is traced ({@link StoredHook#traceparent()}). */
    public static final String TRACEPARENT = "traceparent";

    /** Names that configuration may neither forward nor set. */
    public static final Set<String> RESERVED = Set.of(WEBHOOK_ID, WEBHOOK_TIMESTAMP, WEBHOOK_SIGNATURE,
            SLUICE_TENANT, SLUICE_SOURCE, SLUICE_ATTEMPT, SLUICE_RECEIVED_AT, USER_AGENT,
            "host", "content-length", "transfer-encoding", "connection", "keep-alive", "te", "trailer",
            "upgrade", "proxy-connection", "expect");

    /**
     * {@code sluice-received-at}: RFC 3339 in UTC with exactly three fraction digits and
     * {@code Z}, e.g. {@code 2026-12-03T08:22:38.000Z} (never shortened the way
     * {@link Instant#toString()} drops zero milliseconds).
     */
    public static final DateTimeFormatter RECEIVED_AT_FORMAT =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);
    private static final long MILLIS_PER_DAY = 86_400_000L;
    /** The days whose year {@link #RECEIVED_AT_FORMAT} writes as four digits, without a sign. */
    private static final long FIRST_FOUR_DIGIT_DAY = LocalDate.of(0, 1, 1).toEpochDay();
    private static final long LAST_FOUR_DIGIT_DAY = LocalDate.of(9999, 12, 31).toEpochDay();

    private final List<String> forward;
    private final Map<String, String> configured;
    private final WebhookSigner signer;
    private final String userAgent;

    private OutboundHeaders(List<String> forward, Map<String, String> configured, WebhookSigner signer, String version) {
        this.forward = forward;
        this.configured = configured;
        this.signer = signer;
        this.userAgent = "sluice/" + version;
    }

    /**
     * The headers of the destination configured at {@code destinationPath}.
     *
     * @param forwardHeaders names from {@code forward_headers}
     * @param headers        the configured {@code headers}, name to value, in file order
     * @param signer         the destination's signer, or null when it does not sign
     * @param version        Sluice's version, for {@code user-agent}
     * @throws SettingsException listing every bad name or value, each naming its key path
     */
    public static OutboundHeaders of(String destinationPath, List<String> forwardHeaders, Map<String, String> headers,
                                     WebhookSigner signer, String version) {
        List<String> problems = new ArrayList<>();
        List<String> forward = new ArrayList<>();
        for (int i = 0; i < forwardHeaders.size(); i++) {
            String name = forwardHeaders.get(i);
            String at = destinationPath + ".forward_headers[" + i + "]";
            if (checkName(at, name, problems) && notSigned(at, name, signer, problems)) {
                String lower = name.toLowerCase(Locale.ROOT);
                if (!forward.contains(lower)) {
                    forward.add(lower);
                }
            }
        }
        Map<String, String> configured = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : headers.entrySet()) {
            String at = destinationPath + ".headers." + e.getKey();
            boolean ok = checkName(at, e.getKey(), problems) && notSigned(at, e.getKey(), signer, problems);
            String value = e.getValue();
            if (value == null) {
                problems.add(at + " must be a header value, got nothing");
                ok = false;
            } else if (!isFieldValue(value)) {
                // the value is not printed: configured headers often carry credentials
                problems.add(at + " must be a header value without control characters, got a " + value.length()
                        + "-character value with one (values are not printed: they may be secrets)");
                ok = false;
            }
            if (ok && configured.put(e.getKey().toLowerCase(Locale.ROOT), value.strip()) != null) {
                problems.add(at + " names a header already set under another spelling of " + quote(e.getKey()));
            }
        }
        if (!problems.isEmpty()) {
            throw new SettingsException(problems);
        }
        return new OutboundHeaders(List.copyOf(forward), configured, signer, version);
    }

    /** The configured header values: each may be a credential, so {@link SecretRedactor} masks them. */
    public java.util.Collection<String> configuredValues() {
        return configured.values();
    }

    /** The signer of the attempts, when they are signed: its keys can be rotated at runtime ({@link SecretRotations}). */
    public java.util.Optional<WebhookSigner> signer() {
        return java.util.Optional.ofNullable(signer);
    }

    /** True when attempts carry {@code webhook-signature}. */
    public boolean signs() {
        return signer != null;
    }

    /**
     * The headers of attempt {@code attempt} (from 1) of {@code hook}, started at
     * {@code attemptEpochSeconds}, as (lower-case name, value) pairs in sending order.
     */
    public List<Map.Entry<String, String>> forAttempt(StoredHook hook, int attempt, long attemptEpochSeconds) {
        if (attempt < 1) {
            throw new IllegalArgumentException("attempts count from 1, got " + attempt);
        }
        List<Map.Entry<String, String>> out = new ArrayList<>();
        out.add(Map.entry(signer == null ? WEBHOOK_ID : signer.idHeader(), hook.id()));
        out.add(Map.entry(signer == null ? WEBHOOK_TIMESTAMP : signer.timestampHeader(), Long.toString(attemptEpochSeconds)));
        if (signer != null) {
            out.add(Map.entry(signer.signatureHeader(), signer.signature(hook.id(), attemptEpochSeconds, hook.body())));
        }
        out.add(Map.entry(SLUICE_TENANT, hook.tenant()));
        out.add(Map.entry(SLUICE_SOURCE, hook.source()));
        out.add(Map.entry(SLUICE_ATTEMPT, Integer.toString(attempt)));
        out.add(Map.entry(USER_AGENT, userAgent));
        String traceparent = hook.traceparent();
        if (traceparent != null) {
            out.add(Map.entry(TRACEPARENT, traceparent));
        }
        out.addAll(forwarded(hook));
        configured.forEach((name, value) -> {
            if (traceparent == null || !name.equals(TRACEPARENT)) {
                out.add(Map.entry(name, value));
            }
        });
        return out;
    }

    /**
     * The headers of attempt {@code attempt} (from 1) of {@code hook} to a broker (Kafka
     * record headers, NATS message headers), each (name, value) pair given to {@code sink}
     * as it is made, in this order: {@code webhook-id}, {@code sluice-tenant} (empty for a
     * hook without one), {@code sluice-source}, {@code sluice-received-at},
     * {@code sluice-attempt}, {@code traceparent} when the hook is traced, then {@link #forwarded}. A broker has no
     * {@code webhook-timestamp}, signature or {@code user-agent}, and takes no configured
     * {@code headers}. Each transport writes them its own way (a record header each, NATS's
     * wire form), so no list is made.
     */
    public void forBroker(StoredHook hook, int attempt, BiConsumer<String, String> sink) {
        if (attempt < 1) {
            throw new IllegalArgumentException("attempts count from 1, got " + attempt);
        }
        sink.accept(WEBHOOK_ID, hook.id());
        sink.accept(SLUICE_TENANT, hook.tenant() == null ? "" : hook.tenant());
        sink.accept(SLUICE_SOURCE, hook.source());
        sink.accept(SLUICE_RECEIVED_AT, receivedAt(hook.receivedAtMillis()));
        sink.accept(SLUICE_ATTEMPT, Integer.toString(attempt));
        if (hook.traceparent() != null) {
            sink.accept(TRACEPARENT, hook.traceparent());
        }
        forwarded(hook, sink);
    }

    /**
     * {@code epochMillis} in {@link #RECEIVED_AT_FORMAT}. Written digit by digit for the years
     * 0000 to 9999 (every broker attempt formats one, and the formatter's general path cost a
     * tenth of a NATS publish's CPU); other years go through the formatter, which signs them.
     */
    public static String receivedAt(long epochMillis) {
        long day = Math.floorDiv(epochMillis, MILLIS_PER_DAY);
        if (day < FIRST_FOUR_DIGIT_DAY || day > LAST_FOUR_DIGIT_DAY) {
            return RECEIVED_AT_FORMAT.format(Instant.ofEpochMilli(epochMillis));
        }
        LocalDate date = LocalDate.ofEpochDay(day);
        int ms = (int) Math.floorMod(epochMillis, MILLIS_PER_DAY);
        byte[] b = new byte[24];
        digits(b, 0, date.getYear(), 4);
        b[4] = '-';
        digits(b, 5, date.getMonthValue(), 2);
        b[7] = '-';
        digits(b, 8, date.getDayOfMonth(), 2);
        b[10] = 'T';
        digits(b, 11, ms / 3_600_000, 2);
        b[13] = ':';
        digits(b, 14, ms / 60_000 % 60, 2);
        b[16] = ':';
        digits(b, 17, ms / 1_000 % 60, 2);
        b[19] = '.';
        digits(b, 20, ms % 1_000, 3);
        b[23] = 'Z';
        return new String(b, StandardCharsets.US_ASCII);
    }

    /** {@code value} (0 to 10^width - 1) as {@code width} decimal digits at {@code at}, zero-padded. */
    private static void digits(byte[] b, int at, int value, int width) {
        for (int i = at + width - 1; i >= at; i--) {
            b[i] = (byte) ('0' + value % 10);
            value /= 10;
        }
    }

    /** The names in {@code forward_headers}, lower-case: a hook is stored with these headers. */
    public List<String> forwardNames() {
        return List.copyOf(forward);
    }

    /**
     * The received request's headers named in {@code forward_headers} (and not replaced by a
     * configured one), as (lower-case name, value) pairs in arrival order; a value holding a
     * control character is left out. A broker transport sends these after its own headers.
     */
    public List<Map.Entry<String, String>> forwarded(StoredHook hook) {
        if (forward.isEmpty()) {
            return List.of();
        }
        List<Map.Entry<String, String>> out = new ArrayList<>();
        forwarded(hook, (name, value) -> out.add(Map.entry(name, value)));
        return out;
    }

    private void forwarded(StoredHook hook, BiConsumer<String, String> sink) {
        if (forward.isEmpty()) {
            return;
        }
        for (Map.Entry<String, String> h : hook.headers().entrySet()) {
            String name = forwardedName(h.getKey()); // compared without lower-casing every received name
            if (name != null && !configured.containsKey(name) && isFieldValue(h.getValue())
                    && (hook.traceparent() == null || !name.equals(TRACEPARENT))) { // the attempt's own replaces it
                sink.accept(name, h.getValue());
            }
        }
    }

    /**
     * The name in {@code forward_headers} (lower-case ASCII, a token) that {@code received}
     * equals with ASCII letters folded, else null; made without a copy. Only A-Z fold: unlike
     * {@code received.toLowerCase(ROOT)}, which turns the Kelvin sign U+212A into {@code k},
     * no other character can match a token's.
     */
    private String forwardedName(String received) {
        for (String name : forward) {
            if (HttpTokens.isAsciiLowerCaseOf(name, received)) {
                return name;
            }
        }
        return null;
    }

    // ------------------------------------------------------------------ checks

    private static boolean checkName(String at, String name, List<String> problems) {
        if (!Verifiers.isHeaderName(name)) { // the one RFC 9110 token rule, shared with the verifiers and dedupe
            problems.add(at + " must be a header name (letters, digits and !#$%&'*+-.^_`|~), got "
                    + (name == null ? "nothing" : quote(name)));
            return false;
        }
        if (RESERVED.contains(name.toLowerCase(Locale.ROOT))) {
            problems.add(at + " must not name a header that Sluice sets itself or that frames the request, got "
                    + quote(name));
            return false;
        }
        return true;
    }

    /** False, with a problem, when {@code name} is one the signer sends its id, timestamp or signature under. */
    private static boolean notSigned(String at, String name, WebhookSigner signer, List<String> problems) {
        String lower = name.toLowerCase(Locale.ROOT);
        if (signer != null && (lower.equals(signer.idHeader()) || lower.equals(signer.timestampHeader())
                || lower.equals(signer.signatureHeader()))) {
            problems.add(at + " must not name a header the signing block sends (id_header, timestamp_header,"
                    + " signature_header), got " + quote(name));
            return false;
        }
        return true;
    }

    /** No control character but horizontal tab: in particular no CR, LF or NUL. */
    private static boolean isFieldValue(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if ((c < 0x20 && c != '\t') || c == 0x7f) {
                return false;
            }
        }
        return true;
    }

    private static String quote(String s) {
        StringBuilder out = new StringBuilder("\"");
        for (int i = 0; i < s.length() && i < 64; i++) {
            char c = s.charAt(i);
            if (c < 0x20 || c == 0x7f || c == '"' || c == '\\') {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.append(s.length() > 64 ? "...\"" : "\"").toString();
    }
}
