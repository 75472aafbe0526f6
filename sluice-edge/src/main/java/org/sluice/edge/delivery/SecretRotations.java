package org.sluice.edge.delivery;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sluice.edge.store.HookStoreException;
import org.sluice.edge.store.SigningSecrets;

/**
 * Runtime rotation of the destinations' signing keys: puts the keys the control state holds
 * ({@link SigningSecrets}, read as {@link SigningRotation}s) in force in each signing
 * destination's {@link WebhookSigner}, at boot ({@link #load}), after a rotation made here
 * ({@link #rotate}) and when another node made one ({@link #changed}, the fleet control
 * state's listener). The signer reads its keys on every attempt, so a rotation takes effect
 * from the next attempt, without a restart.
 *
 * <p>A rotation is written to the control state before it is put in force, so a failed write
 * changes nothing. Rotations made here are serialised by one lock; two nodes rotating one
 * destination at the same moment each write their own result, and the later record in the
 * control topic wins on every node.
 *
 * <p>No secret reaches a log line, an exception message or a listing: keys are named by
 * their fingerprint.
 *
 * <p>Thread-safe.
 */
public final class SecretRotations {

    private static final Logger LOG = LoggerFactory.getLogger(SecretRotations.class);
    /** Longest overlap a rotation may ask for: 30 days. */
    public static final long MAX_OVERLAP_SECONDS = 30L * 86_400;

    /** What a rotation answered: done, or refused with a code and a message. */
    public sealed interface Outcome permits Done, Refused {
    }

    /**
     * The key added (kind and fingerprint; the public key for Ed25519) and the keys it gave an
     * end (fingerprint to epoch ms).
     */
    public record Done(SigningKey added, Map<String, Long> retired) implements Outcome {
    }

    /** A refusal: {@code code} is {@code invalid_secret} or {@code too_many_secrets} / {@code secret_in_use}. */
    public record Refused(String code, String message) implements Outcome {
    }

    private final Map<String, WebhookSigner> signers = new LinkedHashMap<>();
    private final SigningSecrets store;
    private final Object lock = new Object();

    /**
     * @param destinations the configured destinations; those that sign can be rotated
     * @param store        where rotations are kept (the control state)
     */
    public SecretRotations(Collection<Destination> destinations, SigningSecrets store) {
        this.store = Objects.requireNonNull(store, "store");
        for (Destination d : destinations) {
            d.headers().signer().ifPresent(s -> signers.put(d.name(), s));
        }
    }

    /** Whether {@code destination} is configured and signs. */
    public boolean signs(String destination) {
        return signers.containsKey(destination);
    }

    /**
     * Puts every stored rotation in force. A stored value that cannot be read leaves its
     * destination on its configured keys, with a warning; a store that cannot be read yet
     * (the fleet's control topic still being read) leaves every destination so, and each
     * rotation is put in force as {@link #changed} is told of it.
     */
    public void load() {
        Map<String, byte[]> stored;
        try {
            stored = store.signingSecrets();
        } catch (RuntimeException e) {
            LOG.warn("the stored signing keys cannot be read; destinations sign with their configured keys: {}",
                    e.getMessage());
            return;
        }
        if (!store.signingSecretsComplete()) {
            LOG.warn("the stored signing keys are not all read yet (the control topic is still being read): each is put"
                    + " in force as it is read");
        }
        stored.forEach(this::put);
    }

    /** Puts {@code destination}'s stored keys in force again: another node changed them. */
    public void changed(String destination) {
        if (!signers.containsKey(destination)) {
            return;
        }
        byte[] value;
        try {
            value = store.signingSecrets().get(destination);
        } catch (RuntimeException e) {
            LOG.warn("the signing keys of {} changed but cannot be read: {}", destination, e.getMessage());
            return;
        }
        if (value != null) {
            put(destination, value);
        }
    }

    private void put(String destination, byte[] value) {
        WebhookSigner signer = signers.get(destination);
        if (signer == null) {
            return; // a destination no longer configured, or no longer signing
        }
        SigningRotation rotation;
        try {
            rotation = SigningRotation.fromJson(value);
        } catch (IllegalArgumentException e) {
            LOG.warn("the stored signing keys of {} cannot be read ({}); it signs with its configured keys", destination,
                    e.getMessage());
            return;
        }
        synchronized (lock) {
            apply(destination, signer, rotation);
        }
    }

    private static void apply(String destination, WebhookSigner signer, SigningRotation rotation) {
        List<String> skipped = new ArrayList<>();
        List<WebhookSigner.Timed> keys = rotation.inForce(signer.configured(), skipped);
        if (!skipped.isEmpty()) {
            LOG.warn("stored signing keys of {} that cannot be read are left out: {}", destination, skipped);
        }
        signer.apply(keys);
    }

    /**
     * Adds {@code secret} ({@code whsec_...} or {@code whsk_...}) to {@code destination}'s
     * signing keys at {@code nowMillis}; the keys of its kind in force stop signing
     * {@code overlapSeconds} later. Stored (fleet-wide on Kafka) before it is put in force.
     *
     * @throws IllegalArgumentException when {@code destination} does not sign or the overlap is out of range (the
     *                                  caller checks both first)
     * @throws HookStoreException       when the control state cannot be read whole or written (nothing changed)
     */
    public Outcome rotate(String destination, String secret, long overlapSeconds, long nowMillis) {
        WebhookSigner signer = signers.get(destination);
        if (signer == null) {
            throw new IllegalArgumentException("destinations." + destination + " does not sign");
        }
        if (overlapSeconds < 0 || overlapSeconds > MAX_OVERLAP_SECONDS) {
            throw new IllegalArgumentException("overlap_seconds must be from 0 to " + MAX_OVERLAP_SECONDS + ", got "
                    + overlapSeconds);
        }
        SigningKey added;
        try {
            added = SigningKey.parse("secret", secret);
        } catch (SettingsException bad) {
            return new Refused("invalid_secret", String.join("; ", bad.errors()));
        }
        if (!store.signingSecretsComplete()) {
            throw new HookStoreException("the stored signing keys are not all read yet: a rotation now could undo another");
        }
        synchronized (lock) {
            SigningRotation now = current(destination);
            SigningRotation.Rotated rotated;
            try {
                rotated = now.rotate(signer.configured(), added, overlapSeconds * 1000, nowMillis);
            } catch (IllegalArgumentException refused) {
                return new Refused(refused.getMessage().startsWith("this key") ? "secret_in_use" : "too_many_secrets",
                        refused.getMessage());
            }
            store.putSigningSecrets(destination, rotated.rotation().toJson());
            apply(destination, signer, rotated.rotation());
            return new Done(added, rotated.retired());
        }
    }

    /** The stored rotation of {@code destination}; none when there is none or it cannot be read (then it starts anew). */
    private SigningRotation current(String destination) {
        byte[] value = store.signingSecrets().get(destination);
        if (value == null) {
            return SigningRotation.NONE;
        }
        try {
            return SigningRotation.fromJson(value);
        } catch (IllegalArgumentException e) {
            LOG.warn("the stored signing keys of {} cannot be read ({}); the rotation starts from the configured keys",
                    destination, e.getMessage());
            return SigningRotation.NONE;
        }
    }

    /** {@code destination}'s configured keys (none when it does not sign). */
    public List<SigningKey> configured(String destination) {
        WebhookSigner signer = signers.get(destination);
        return signer == null ? List.of() : signer.configured();
    }

    /** {@code destination}'s keys in force, each with its end, or empty when it does not sign. */
    public Optional<List<WebhookSigner.Timed>> keys(String destination) {
        WebhookSigner signer = signers.get(destination);
        return signer == null ? Optional.empty() : Optional.of(signer.keys());
    }
}
