package org.sluice.edge.delivery;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;

/**
 * The receiving side of Standard Webhooks, written for the tests from the scheme's
 * description and sharing nothing with {@link WebhookSigner}: it even computes HMAC-SHA256
 * by hand from SHA-256 (RFC 2104), so a mistake in how the signer drives {@code Mac} cannot
 * hide in both.
 *
 * <p>The check: the secret is {@code whsec_} + base64 of the key; the signed content is the
 * id, a dot, the timestamp, a dot, then the body; {@code webhook-signature} is a
 * space-separated list of {@code version,base64}; the request is genuine when the timestamp
 * is within the tolerance of now and some {@code v1} entry equals the expected MAC.
 */
public final class StandardWebhooksCheck {

    private static final int BLOCK = 64;

    private final byte[] key;
    private final long toleranceSeconds;

    public StandardWebhooksCheck(String secret, long toleranceSeconds) {
        if (!secret.startsWith("whsec_")) {
            throw new IllegalArgumentException("not a whsec_ secret");
        }
        this.key = Base64.getDecoder().decode(secret.substring(6));
        this.toleranceSeconds = toleranceSeconds;
    }

    public boolean genuine(String id, String timestamp, String signatureHeader, byte[] body, long nowSeconds) {
        if (id == null || timestamp == null || signatureHeader == null) {
            return false;
        }
        long ts;
        try {
            ts = Long.parseLong(timestamp);
        } catch (NumberFormatException e) {
            return false;
        }
        if (Math.abs(nowSeconds - ts) > toleranceSeconds) {
            return false;
        }
        byte[] prefix = (id + "." + timestamp + ".").getBytes(StandardCharsets.UTF_8);
        byte[] content = new byte[prefix.length + body.length];
        System.arraycopy(prefix, 0, content, 0, prefix.length);
        System.arraycopy(body, 0, content, prefix.length, body.length);
        byte[] expected = hmacSha256(key, content);
        for (String entry : signatureHeader.split(" ")) {
            int comma = entry.indexOf(',');
            if (comma < 0 || !entry.substring(0, comma).equals("v1")) {
                continue;
            }
            byte[] presented;
            try {
                presented = Base64.getDecoder().decode(entry.substring(comma + 1));
            } catch (IllegalArgumentException e) {
                continue;
            }
            if (MessageDigest.isEqual(expected, presented)) {
                return true;
            }
        }
        return false;
    }

    /** HMAC per RFC 2104: H((K ^ opad) || H((K ^ ipad) || m)), K padded to the block size. */
    static byte[] hmacSha256(byte[] key, byte[] message) {
        byte[] k = key.length > BLOCK ? sha256(key) : key;
        byte[] inner = new byte[BLOCK];
        byte[] outer = new byte[BLOCK];
        for (int i = 0; i < BLOCK; i++) {
            byte b = i < k.length ? k[i] : 0;
            inner[i] = (byte) (b ^ 0x36);
            outer[i] = (byte) (b ^ 0x5c);
        }
        MessageDigest d = digest();
        d.update(inner);
        d.update(message);
        byte[] innerHash = d.digest();
        d.update(outer);
        d.update(innerHash);
        return d.digest();
    }

    private static byte[] sha256(byte[] data) {
        return digest().digest(data);
    }

    private static MessageDigest digest() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
