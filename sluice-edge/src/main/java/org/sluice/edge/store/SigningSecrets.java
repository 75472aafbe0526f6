package org.sluice.edge.store;

import java.util.Map;

/**
 * The signing keys operators added to destinations at runtime ({@code POST
 * /v1/destinations/{name}/secrets}): control state, kept durably by the store (on
 * {@code store.kind: kafka}, the fleet's, so a rotation made on one node signs on every
 * node). The value is opaque here: delivery writes and reads it ({@code SigningRotation}).
 * It holds secrets, so no implementation logs or prints it.
 */
public interface SigningSecrets {

    /**
     * Every destination's stored value, by destination name; read from memory once the store
     * has been read. On the fleet's control topic, what has been read so far: complete once
     * {@link #signingSecretsComplete} says so (a record read later is announced to the
     * store's listeners).
     */
    Map<String, byte[]> signingSecrets();

    /** Whether {@link #signingSecrets} holds every stored value: a rotation is computed only from a complete one. */
    default boolean signingSecretsComplete() {
        return true;
    }

    /** Stores {@code destination}'s value, replacing the one it had; durable when answered. */
    void putSigningSecrets(String destination, byte[] value);
}
