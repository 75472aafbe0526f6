package org.sluice.edge.admin;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import org.sluice.edge.delivery.SecretRotations;
import org.sluice.edge.delivery.SigningKey;
import org.sluice.edge.delivery.WebhookSigner;

/**
 * {@code GET|POST /v1/destinations/{name}/secrets}: the signing keys a destination signs
 * with (kind, fingerprint, origin, end, and the public key of an Ed25519 one), and a
 * rotation: a new key that signs at once while the keys of its kind stop after
 * {@code overlap_seconds} ({@link SecretRotations}). Shapes in docs/admin-api.md.
 *
 * <p>No answer, audit record or log line holds a secret: keys are named by fingerprint. The
 * request body holds one, and nothing here keeps or prints it.
 *
 * <p>Stateless apart from the rotations it is given.
 */
final class SigningAdmin {

    /** {@code overlap_seconds} of a rotation body without one: a day. */
    static final long DEFAULT_OVERLAP_SECONDS = 86_400;
    static final String ACTION = "rotate_secret";

    private static final List<String> FIELDS = List.of("secret", "overlap_seconds");
    private static final String SHAPE = "the body must be one JSON object such as {\"secret\":\"whsec_...\","
            + "\"overlap_seconds\":86400} (whsec_ for an HMAC secret, whsk_ for an Ed25519 private key)";

    private final SecretRotations rotations;
    private final LongSupplier wallMillis;

    /** @param rotations the node's rotations, or null: every destination answers {@code not_signing} */
    SigningAdmin(SecretRotations rotations, LongSupplier wallMillis) {
        this.rotations = rotations;
        this.wallMillis = wallMillis;
    }

    /** The keys {@code name} (a configured destination) signs with now. */
    AdminResponse list(String name) {
        if (rotations == null || !rotations.signs(name)) {
            return notSigning(name);
        }
        return AdminResponse.json(200, AdminJson.encode(view(name)));
    }

    /** Rotates {@code name}'s keys (a configured destination) as the body asks, audited as {@value #ACTION}. */
    AdminResponse rotate(String name, byte[] body, String actor, AuditTrail audit) {
        Map<String, Object> fields = AdminJson.readObject(body);
        String problem = AdminJson.fieldsProblem(fields, FIELDS, SHAPE);
        if (problem != null) {
            return invalid(problem);
        }
        if (!(fields.get("secret") instanceof String secret)) {
            return invalid("secret is required: a string, whsec_ followed by the base64 of an HMAC key or whsk_"
                    + " followed by the base64 of an Ed25519 seed");
        }
        Object overlap = fields.getOrDefault("overlap_seconds", DEFAULT_OVERLAP_SECONDS);
        long overlapSeconds = overlap instanceof Integer i ? i : overlap instanceof Long l ? l : -1;
        if (overlapSeconds < 0 || overlapSeconds > SecretRotations.MAX_OVERLAP_SECONDS) {
            return invalid("overlap_seconds must be an integer from 0 to " + SecretRotations.MAX_OVERLAP_SECONDS
                    + " (how long the keys of the new key's kind go on signing)");
        }
        if (rotations == null || !rotations.signs(name)) {
            return notSigning(name);
        }
        SecretRotations.Outcome outcome = rotations.rotate(name, secret, overlapSeconds, wallMillis.getAsLong());
        if (outcome instanceof SecretRotations.Refused r) {
            return AdminResponse.json(r.code().equals("invalid_secret") ? 400 : 409, AdminJson.error(r.code(), r.message()));
        }
        audit.record(actor, ACTION, null, null, audited(name, (SecretRotations.Done) outcome, overlapSeconds));
        return AdminResponse.json(200, AdminJson.encode(view(name)));
    }

    private static Map<String, Object> audited(String name, SecretRotations.Done done, long overlapSeconds) {
        Map<String, Object> after = new LinkedHashMap<>();
        after.put("destination", name);
        after.put("added", done.added().kind() + " " + done.added().fingerprint());
        Map<String, Object> retired = new LinkedHashMap<>();
        done.retired().forEach((fingerprint, until) -> retired.put(fingerprint, AdminJson.time(until)));
        after.put("retired", retired);
        after.put("overlap_seconds", overlapSeconds);
        return after;
    }

    private Map<String, Object> view(String name) {
        long now = wallMillis.getAsLong();
        List<WebhookSigner.Timed> keys = rotations.keys(name).orElse(List.of());
        List<SigningKey> configured = rotations.configured(name);
        List<Map<String, Object>> out = new ArrayList<>();
        for (WebhookSigner.Timed t : keys) {
            if (t.untilMillis() != WebhookSigner.NO_END && t.untilMillis() <= now) {
                continue; // no longer signs
            }
            SigningKey key = t.key();
            Map<String, Object> k = new LinkedHashMap<>();
            k.put("kind", key.kind());
            k.put("version", key.version());
            k.put("fingerprint", key.fingerprint());
            k.put("origin", configured.stream().anyMatch(c -> c.fingerprint().equals(key.fingerprint())) ? "config" : "rotated");
            k.put("signs_until", t.untilMillis() == WebhookSigner.NO_END ? null : AdminJson.time(t.untilMillis()));
            k.put("public_key", key instanceof SigningKey.Ed25519 ed ? ed.publicKey() : null);
            out.add(k);
        }
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("destination", name);
        view.put("keys", out);
        return view;
    }

    private static AdminResponse notSigning(String name) {
        return AdminResponse.json(409, AdminJson.error("not_signing", "destinations." + name
                + " has no signing block: a rotation adds keys to a destination that signs"));
    }

    private static AdminResponse invalid(String message) {
        return AdminResponse.json(400, AdminJson.error("invalid_secret", message));
    }
}
