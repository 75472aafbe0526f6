package org.sluice.edge.verify;

import java.security.GeneralSecurityException;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/** The HMAC digests a source may use, by their configured names. */
enum HmacAlgorithm {
    SHA256("sha256", "HmacSHA256", 32),
    SHA512("sha512", "HmacSHA512", 64),
    SHA1("sha1", "HmacSHA1", 20);

    final String configName;
    final String jcaName;
    final int length;

    HmacAlgorithm(String configName, String jcaName, int length) {
        this.configName = configName;
        this.jcaName = jcaName;
        this.length = length;
    }

    /** The algorithm with this configured name, or null. */
    static HmacAlgorithm named(String name) {
        for (HmacAlgorithm a : values()) {
            if (a.configName.equals(name)) {
                return a;
            }
        }
        return null;
    }

    /** A new Mac initialised with {@code key} (non-empty). */
    Mac newMac(byte[] key) {
        try {
            Mac mac = Mac.getInstance(jcaName);
            mac.init(new SecretKeySpec(key, jcaName));
            return mac;
        } catch (GeneralSecurityException e) {
            // Every Java SE runtime must provide these three HMACs.
            throw new IllegalStateException(jcaName + " is not available", e);
        }
    }

    /** One-shot MAC of the concatenated parts. */
    byte[] mac(byte[] key, byte[]... parts) {
        Mac mac = newMac(key);
        for (byte[] part : parts) {
            mac.update(part);
        }
        return mac.doFinal();
    }
}
