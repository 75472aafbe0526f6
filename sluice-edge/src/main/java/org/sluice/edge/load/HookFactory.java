package org.sluice.edge.load;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.sluice.edge.verify.Signatures;

/**
 * Makes the signed requests of a run. Every fresh event gets a unique id, carried in every
 * place a dedupe key is looked for by default ({@code X-Event-Id}, {@code X-GitHub-Delivery},
 * {@code webhook-id} and the body's {@code id}), so whichever {@code dedupe} the source uses,
 * two fresh events are two hooks.
 *
 * <p>A duplicate resends the id and body of an event the edge answered {@code 202}
 * (re-signed, with a fresh timestamp for the schemes that sign one), so with dedupe on it
 * is answered {@code 200 duplicate}; before any event was accepted a fresh one is sent
 * instead. A bad signature keeps the header well formed and flips one digit of the MAC, so
 * it is refused {@code 401 no_match} after a full check.
 *
 * <p>Threads: {@link #next} runs on the scheduler thread only; {@link #accepted} on the
 * connection pool's event loop only. They share the ring of accepted events: the writer
 * stores a slot, then publishes the count (volatile), so a reader that sees the count sees
 * the slot.
 */
final class HookFactory {

    /** What a request is meant to show. */
    enum Kind { FRESH, DUPLICATE, BAD_SIGNATURE }

    /** One event: enough to send it again. */
    record Event(String id, String path, byte[] body) {
    }

    /** One request ready to write. */
    record Hook(Event event, Kind kind, Map<String, String> headers, long intendedNanos) {
    }

    private static final int RING = 4096;

    private final LoadOptions options;
    private final SplittableRandom random;
    private final String runId;
    private final AtomicReferenceArray<Event> acceptedRing = new AtomicReferenceArray<>(RING);
    private final AtomicLong acceptedCount = new AtomicLong();
    private long sequence;

    HookFactory(LoadOptions options) {
        this.options = options;
        this.random = new SplittableRandom(options.seed());
        // ids must not repeat across runs against the same edge, whatever the seed
        this.runId = Long.toString(System.currentTimeMillis(), 36) + Integer.toString(ThreadLocalRandom.current().nextInt(1 << 20), 36);
    }

    /** The request due at {@code intendedNanos}. */
    Hook next(long intendedNanos, long epochSeconds) {
        if (options.badSignatures() > 0 && random.nextDouble() < options.badSignatures()) {
            Event e = fresh();
            return new Hook(e, Kind.BAD_SIGNATURE, sign(e, epochSeconds, true), intendedNanos);
        }
        if (options.duplicates() > 0 && random.nextDouble() < options.duplicates()) {
            long n = acceptedCount.get();
            if (n > 0) {
                Event e = acceptedRing.get((int) (random.nextLong(Math.min(n, RING))));
                return new Hook(e, Kind.DUPLICATE, sign(e, epochSeconds, false), intendedNanos);
            }
        }
        Event e = fresh();
        return new Hook(e, Kind.FRESH, sign(e, epochSeconds, false), intendedNanos);
    }

    /** Remembers an event the edge accepted, as a candidate for a duplicate. */
    void accepted(Event event) {
        long n = acceptedCount.get();
        acceptedRing.set((int) (n % RING), event);
        acceptedCount.set(n + 1); // single writer: the event loop
    }

    private Event fresh() {
        String id = "evt_" + runId + "_" + (++sequence);
        String path = options.prefix()
                + (options.tenants() > 0 ? "/tenant-" + (1 + random.nextInt(options.tenants())) : "")
                + "/" + options.source();
        return new Event(id, path, body(id));
    }

    private byte[] body(String id) {
        String head = "{\"id\":\"" + id + "\",\"type\":\"load\",\"pad\":\"";
        String tail = "\"}";
        int pad = Math.max(0, options.bodyBytes() - head.length() - tail.length());
        StringBuilder b = new StringBuilder(head.length() + pad + tail.length()).append(head);
        for (int i = 0; i < pad; i++) {
            b.append('x');
        }
        return b.append(tail).toString().getBytes(StandardCharsets.UTF_8);
    }

    /** Every header the request carries, signed (or corrupted) for the run's scheme. */
    Map<String, String> sign(Event e, long epochSeconds, boolean corrupt) {
        Map<String, String> h = new LinkedHashMap<>();
        h.put("Content-Type", "application/json");
        h.put("X-Event-Id", e.id());
        h.put("X-GitHub-Delivery", e.id());
        h.put("webhook-id", e.id());
        String secret = options.secret();
        switch (options.scheme()) {
            case "hmac" -> {
                String v = Signatures.hmac("sha256", "hex", "sha256=", secret, e.body());
                h.put("X-Signature", corrupt ? flip(v, "sha256=".length()) : v);
            }
            case "github" -> {
                String v = Signatures.github(secret, e.body());
                h.put("X-Hub-Signature-256", corrupt ? flip(v, "sha256=".length()) : v);
            }
            case "stripe" -> {
                String v = Signatures.stripe(secret, e.body(), epochSeconds);
                h.put("Stripe-Signature", corrupt ? flip(v, v.indexOf("v1=") + 3) : v);
            }
            case "standard_webhooks" -> {
                String v = Signatures.standardWebhooks(secret, e.id(), epochSeconds, e.body());
                h.put("webhook-timestamp", Long.toString(epochSeconds));
                h.put("webhook-signature", corrupt ? flip(v, "v1,".length()) : v);
            }
            default -> throw new IllegalArgumentException("--scheme must be one of hmac, github, stripe, standard_webhooks, got \"" + options.scheme() + "\"");
        }
        return h;
    }

    /** Replaces the MAC's character at {@code at} with another digit valid in hex and base64. */
    private static String flip(String value, int at) {
        char c = value.charAt(at);
        return value.substring(0, at) + (c == '0' ? '1' : '0') + value.substring(at + 1);
    }
}
