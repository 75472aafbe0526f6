package org.sluice.edge.load;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * What one load run does. Built by the CLI from its flags (names in the messages are the
 * flags') or by tests directly; {@link #problems()} lists every invalid field.
 *
 * @param url           the ingest prefix, e.g. {@code http://127.0.0.1:8080/hooks} (an empty path means {@code /hooks})
 * @param source        the source id, the last path segment
 * @param scheme        how requests are signed: hmac, github, stripe, standard_webhooks
 * @param secret        the signing secret as written in the source's config
 * @param rate          intended requests per second
 * @param durationNanos how long requests are offered
 * @param connections   keep-alive connections in the pool
 * @param bodyBytes     size of each JSON body (at least the size of the bare event)
 * @param duplicates    probability that a request resends an event that was accepted before
 * @param badSignatures probability that a request's signature is corrupted
 * @param tenants       0: {@code url/source}; N: {@code url/tenant-K/source}, K in 1..N
 * @param seed          seeds the choice of duplicates, bad signatures and tenants
 */
public record LoadOptions(URI url, String source, String scheme, String secret, long rate, long durationNanos,
                          int connections, int bodyBytes, double duplicates, double badSignatures, int tenants,
                          long seed) {

    /** The schemes {@code --scheme} accepts. */
    public static final Set<String> SCHEMES = Set.of("hmac", "github", "stripe", "standard_webhooks");

    /** Every problem, each naming the flag and the value; empty when the options can run. */
    public List<String> problems() {
        List<String> p = new ArrayList<>();
        if (url == null || !("http".equals(url.getScheme()) || "https".equals(url.getScheme())) || url.getHost() == null) {
            p.add("--url must be an http or https URL with a host, got " + quote(url));
        }
        if (source == null || source.isBlank() || source.contains("/")) {
            p.add("--source must be a source id, got " + quote(source));
        }
        if (!SCHEMES.contains(scheme)) {
            p.add("--scheme must be one of hmac, github, stripe, standard_webhooks, got " + quote(scheme));
        }
        if (secret == null || secret.isEmpty()) {
            p.add("--secret must be a non-empty secret, got an empty value");
        }
        if (rate < 1 || rate > 1_000_000_000L) {
            p.add("--rate must be from 1 to 1000000000 requests per second, got " + rate);
        }
        if (durationNanos < 1_000_000) {
            p.add("--duration must be at least 1ms, got " + durationNanos + "ns");
        }
        if (connections < 1 || connections > 10_000) {
            p.add("--connections must be from 1 to 10000, got " + connections);
        }
        if (bodyBytes < 0 || bodyBytes > 64 * 1024 * 1024) {
            p.add("--body-bytes must be from 0 to 67108864, got " + bodyBytes);
        }
        if (!(duplicates >= 0 && duplicates <= 1)) {
            p.add("--duplicates must be a probability from 0 to 1, got " + duplicates);
        }
        if (!(badSignatures >= 0 && badSignatures <= 1)) {
            p.add("--bad-signatures must be a probability from 0 to 1, got " + badSignatures);
        }
        if (tenants < 0) {
            p.add("--tenants must be 0 (no tenant in the path) or more, got " + tenants);
        }
        return p;
    }

    /** Path of the URL without a trailing slash; {@code /hooks} when the URL has none. */
    String prefix() {
        String path = url.getRawPath();
        if (path == null || path.isEmpty() || "/".equals(path)) {
            return "/hooks";
        }
        return path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    }

    int port() {
        return url.getPort() != -1 ? url.getPort() : "https".equals(url.getScheme()) ? 443 : 80;
    }

    /**
     * Reads a duration: a whole number followed by {@code ms}, {@code s}, {@code m} or
     * {@code h}; a bare number is seconds.
     *
     * @throws IllegalArgumentException naming the value when it is none of these
     */
    public static long parseDuration(String text) {
        String t = text == null ? "" : text.trim();
        long unit;
        String digits;
        if (t.endsWith("ms")) {
            unit = 1_000_000L;
            digits = t.substring(0, t.length() - 2);
        } else if (t.endsWith("s")) {
            unit = 1_000_000_000L;
            digits = t.substring(0, t.length() - 1);
        } else if (t.endsWith("m")) {
            unit = 60_000_000_000L;
            digits = t.substring(0, t.length() - 1);
        } else if (t.endsWith("h")) {
            unit = 3_600_000_000_000L;
            digits = t.substring(0, t.length() - 1);
        } else {
            unit = 1_000_000_000L;
            digits = t;
        }
        try {
            long n = Long.parseLong(digits);
            if (n < 0 || n > Long.MAX_VALUE / unit) {
                throw new NumberFormatException();
            }
            return n * unit;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--duration must be a whole number with ms, s, m or h (e.g. 60s), got \"" + text + "\"");
        }
    }

    private static String quote(Object o) {
        return o == null ? "null" : "\"" + o + "\"";
    }
}
