package org.sluice.edge.delivery;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What runtime rotations changed in one destination's signing keys, as the control state
 * stores it: a list of entries, each a key's {@link SigningKey#fingerprint} and its end
 * ({@link WebhookSigner#NO_END}: none), with the key itself ({@code whsec_...} or
 * {@code whsk_...}) for a key the rotations added. An entry without a key is a configured
 * key's end: the configuration still lists it, and the entry retires it.
 *
 * <h2>The keys in force ({@link #inForce})</h2>
 * The configured keys, in their order, each with the end an entry gives its fingerprint;
 * then the keys the rotations added that the configuration does not list, in the order they
 * were added. So the control state wins over the configuration for every key it has seen
 * (a configured secret once rotated out stays out after a restart, even while the file still
 * lists it), and a configured key it has never seen signs as configured.
 *
 * <h2>A rotation ({@link #rotate})</h2>
 * The new key signs from now on, with no end; every key of the same kind (HMAC or Ed25519)
 * in force without an end, or with a later one, stops at {@code now + overlap}. Keys whose
 * end has passed lose their secret in the stored record (their fingerprint stays, so a
 * configured one stays retired). At most {@value WebhookSigner#MAX_SECRETS} keys may sign at
 * once.
 *
 * <p>Immutable.
 */
public final class SigningRotation {

    /** One key's entry: its fingerprint, its text (null: a configured key) and its end. */
    public record Entry(String fingerprint, String secret, long untilMillis) {
        public Entry {
            Objects.requireNonNull(fingerprint, "fingerprint");
        }

        /** Never prints the secret. */
        @Override
        public String toString() {
            return "Entry[" + fingerprint + (secret == null ? "" : ", secret redacted") + ", until_ms=" + untilMillis + "]";
        }
    }

    /** The keys of the configuration alone. */
    public static final SigningRotation NONE = new SigningRotation(List.of());

    private static final ObjectMapper JSON = new ObjectMapper();

    private final List<Entry> entries;

    private SigningRotation(List<Entry> entries) {
        this.entries = List.copyOf(entries);
    }

    public List<Entry> entries() {
        return entries;
    }

    // ------------------------------------------------------------------ the keys in force

    /**
     * The keys that sign, with their ends: the configured ones, then the added ones. A stored
     * key that no longer parses is skipped and named in {@code skipped} (by fingerprint).
     */
    public List<WebhookSigner.Timed> inForce(List<SigningKey> configured, List<String> skipped) {
        Map<String, Entry> byFingerprint = new LinkedHashMap<>();
        entries.forEach(e -> byFingerprint.put(e.fingerprint(), e));
        List<WebhookSigner.Timed> out = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (SigningKey key : configured) {
            if (seen.add(key.fingerprint())) {
                Entry e = byFingerprint.get(key.fingerprint());
                out.add(new WebhookSigner.Timed(key, e == null ? WebhookSigner.NO_END : e.untilMillis()));
            }
        }
        for (Entry e : entries) {
            if (e.secret() != null && seen.add(e.fingerprint())) {
                try {
                    out.add(new WebhookSigner.Timed(SigningKey.parse("a rotated key", e.secret()), e.untilMillis()));
                } catch (SettingsException unreadable) {
                    skipped.add(e.fingerprint());
                }
            }
        }
        return out;
    }

    // ------------------------------------------------------------------ rotating

    /** What a rotation did: the record to store, and the keys it gave an end (by fingerprint, with that end). */
    public record Rotated(SigningRotation rotation, Map<String, Long> retired) {
    }

    /**
     * This rotation with {@code added} signing from {@code nowMillis} on and the keys of its
     * kind in force stopping at {@code nowMillis + overlapMillis}.
     *
     * @throws IllegalArgumentException when {@code added} already signs, or when more than
     *     {@value WebhookSigner#MAX_SECRETS} keys would sign at once; the message says which
     */
    public Rotated rotate(List<SigningKey> configured, SigningKey added, long overlapMillis, long nowMillis) {
        if (overlapMillis < 0) {
            throw new IllegalArgumentException("an overlap is at least 0 ms, got " + overlapMillis);
        }
        long end = nowMillis + overlapMillis;
        List<WebhookSigner.Timed> now = inForce(configured, new ArrayList<>());
        Map<String, Entry> next = new LinkedHashMap<>();
        for (Entry e : entries) { // what passed loses its secret; a configured key's end is kept
            next.put(e.fingerprint(), e.untilMillis() <= nowMillis ? new Entry(e.fingerprint(), null, e.untilMillis()) : e);
        }
        Map<String, Long> retired = new LinkedHashMap<>();
        int signing = 1;
        for (WebhookSigner.Timed t : now) {
            SigningKey key = t.key();
            if (key.fingerprint().equals(added.fingerprint()) && t.untilMillis() > nowMillis) {
                throw new IllegalArgumentException("this key signs already (" + key.kind() + " key " + key.fingerprint() + ")");
            }
            if (t.untilMillis() <= nowMillis) {
                continue;
            }
            signing++;
            if (key.kind().equals(added.kind()) && t.untilMillis() > end) {
                Entry held = next.get(key.fingerprint());
                next.put(key.fingerprint(), new Entry(key.fingerprint(), held == null ? null : held.secret(), end));
                retired.put(key.fingerprint(), end);
            }
        }
        if (signing > WebhookSigner.MAX_SECRETS) {
            throw new IllegalArgumentException("at most " + WebhookSigner.MAX_SECRETS + " keys sign at once, and "
                    + (signing - 1) + " do until their ends: wait for one to end");
        }
        next.remove(added.fingerprint()); // a key rotated out and now back: added again
        next.put(added.fingerprint(), new Entry(added.fingerprint(), added.secret(), WebhookSigner.NO_END));
        Set<String> configuredPrints = new HashSet<>();
        configured.forEach(k -> configuredPrints.add(k.fingerprint()));
        // an ended key the configuration does not list needs no entry any more
        next.values().removeIf(e -> e.secret() == null && !configuredPrints.contains(e.fingerprint()));
        return new Rotated(new SigningRotation(new ArrayList<>(next.values())), retired);
    }

    // ------------------------------------------------------------------ stored form

    /**
     * The stored form: {@code {"keys":[{"fingerprint":"...","secret":"whsec_..."|null,"until_ms":N|null}]}}.
     * It holds secrets: the control state keeps it, and nothing else prints it.
     */
    public byte[] toJson() {
        ObjectNode root = JSON.createObjectNode();
        ArrayNode keys = root.putArray("keys");
        for (Entry e : entries) {
            ObjectNode k = keys.addObject();
            k.put("fingerprint", e.fingerprint());
            if (e.secret() == null) {
                k.putNull("secret");
            } else {
                k.put("secret", e.secret());
            }
            if (e.untilMillis() == WebhookSigner.NO_END) {
                k.putNull("until_ms");
            } else {
                k.put("until_ms", e.untilMillis());
            }
        }
        try {
            return JSON.writeValueAsBytes(root);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write a signing rotation", e);
        }
    }

    /**
     * The rotation stored as {@code json}.
     *
     * @throws IllegalArgumentException when it is not one (the message never holds a secret)
     */
    public static SigningRotation fromJson(byte[] json) {
        JsonNode root;
        try {
            root = JSON.readTree(json);
        } catch (IOException e) {
            throw new IllegalArgumentException("a stored signing rotation is not JSON");
        }
        JsonNode keys = root == null ? null : root.get("keys");
        if (keys == null || !keys.isArray()) {
            throw new IllegalArgumentException("a stored signing rotation needs a keys array");
        }
        List<Entry> out = new ArrayList<>();
        for (JsonNode k : keys) {
            JsonNode fingerprint = k.get("fingerprint");
            JsonNode secret = k.get("secret");
            JsonNode until = k.get("until_ms");
            if (fingerprint == null || !fingerprint.isTextual() || (secret != null && !secret.isNull() && !secret.isTextual())
                    || (until != null && !until.isNull() && !until.canConvertToLong())) {
                throw new IllegalArgumentException("a stored signing rotation has a key entry of the wrong shape");
            }
            out.add(new Entry(fingerprint.asText(), secret == null || secret.isNull() ? null : secret.asText(),
                    until == null || until.isNull() ? WebhookSigner.NO_END : until.asLong()));
        }
        return new SigningRotation(out);
    }

    @Override
    public String toString() {
        return "SigningRotation" + entries.stream().map(e -> e.fingerprint() + "@" + e.untilMillis()).toList();
    }
}
