package org.sluice.edge.dedupe;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import org.sluice.edge.verify.HeaderLookup;

/**
 * The key is the SHA-256 of the body exactly as received (the same bytes the signature
 * covers), as 64 lowercase hex digits: what {@code sha256sum} prints for the body. Every body,
 * the empty one included, has a key, and headers are never read: a captured request sent
 * again under a fresh delivery id is the same key, so it is a duplicate for as long as the
 * dedupe window remembers it. 64 bytes is within {@link DedupeKeys#MAX_KEY_BYTES}, so the key
 * is stored as is.
 */
final class BodySha256Key implements DedupeKeyExtractor {

    static final BodySha256Key INSTANCE = new BodySha256Key();

    private BodySha256Key() {
    }

    @Override
    public String extract(HeaderLookup headers, byte[] body) {
        return DedupeKeys.hex(sha256().digest(body));
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is not available", e); // every Java SE runtime has it
        }
    }
}
