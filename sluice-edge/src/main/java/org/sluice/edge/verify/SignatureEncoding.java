package org.sluice.edge.verify;

import java.util.Base64;

/**
 * Strict decoding of presented signatures and encoding of computed ones. Decoders answer
 * null for anything they cannot read, so callers turn it into a {@code malformed_signature}
 * value instead of catching exceptions on the request path.
 */
final class SignatureEncoding {

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private SignatureEncoding() {
    }

    /** Hex (either case) of exactly {@code length} bytes, or null. */
    static byte[] hex(String s, int length) {
        return hex(s, 0, length);
    }

    /** Hex (either case) of exactly {@code length} bytes from {@code from} to the end of {@code s}, or null. */
    static byte[] hex(String s, int from, int length) {
        if (s == null || from < 0 || s.length() - from != 2 * length) {
            return null;
        }
        byte[] out = new byte[length];
        for (int i = 0; i < length; i++) {
            int hi = Character.digit(s.charAt(from + 2 * i), 16);
            int lo = Character.digit(s.charAt(from + 2 * i + 1), 16);
            if (hi < 0 || lo < 0) {
                return null;
            }
            out[i] = (byte) ((hi << 4) | lo);
        }
        return out;
    }

    /**
     * Standard-alphabet base64 (padding optional) of exactly {@code length} bytes, or null. A
     * string longer than the padded encoding of {@code length} bytes is refused unread.
     */
    static byte[] base64(String s, int length) {
        if (s == null || s.length() > paddedBase64Length(length)) {
            return null;
        }
        byte[] out = base64(s);
        return out != null && out.length == length ? out : null;
    }

    /** Characters in the padded base64 encoding of {@code bytes} bytes: the longest a valid one can be. */
    static int paddedBase64Length(int bytes) {
        return 4 * ((bytes + 2) / 3);
    }

    /** Standard-alphabet base64 (padding optional), or null when it does not decode. */
    static byte[] base64(String s) {
        if (s == null) {
            return null;
        }
        try {
            return Base64.getDecoder().decode(s);
        } catch (IllegalArgumentException notBase64) {
            return null;
        }
    }

    static String toHex(byte[] bytes) {
        char[] out = new char[bytes.length * 2];
        for (int i = 0; i < bytes.length; i++) {
            out[2 * i] = HEX[(bytes[i] >> 4) & 0xf];
            out[2 * i + 1] = HEX[bytes[i] & 0xf];
        }
        return new String(out);
    }

    static String toBase64(byte[] bytes) {
        return Base64.getEncoder().encodeToString(bytes);
    }

    /**
     * A Unix timestamp in seconds: 1 to 15 ASCII digits, nothing else (no sign, no spaces),
     * or -1. Fifteen digits is far past any real clock and keeps the arithmetic overflow-free.
     */
    static long epochSeconds(String s) {
        if (s == null || s.isEmpty() || s.length() > 15) {
            return -1;
        }
        long v = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            v = v * 10 + (c - '0');
        }
        return v;
    }

    /** True when {@code ts} is within {@code toleranceSeconds} of {@code now}, either side. */
    static boolean withinTolerance(long ts, long now, long toleranceSeconds) {
        return ts >= now - toleranceSeconds && ts <= now + toleranceSeconds;
    }
}
