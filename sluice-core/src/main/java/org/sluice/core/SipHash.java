package org.sluice.core;

/**
 * SipHash-2-4 (Aumasson and Bernstein, "SipHash: a fast short-input PRF", 2012): a keyed
 * 64-bit hash. Under a secret 128-bit key an attacker who chooses the inputs still
 * cannot predict which inputs collide, which is what the {@link AddressTable} needs.
 *
 * <p>Key halves {@code k0}, {@code k1} are the key's bytes 0-7 and 8-15 read
 * little-endian, as in the paper. Allocation-free.
 */
final class SipHash {

    private SipHash() {
    }

    /** SipHash-2-4 of {@code len} bytes of {@code data} from {@code off}. */
    static long hash(long k0, long k1, byte[] data, int off, int len) {
        long v0 = k0 ^ 0x736f6d6570736575L;
        long v1 = k1 ^ 0x646f72616e646f6dL;
        long v2 = k0 ^ 0x6c7967656e657261L;
        long v3 = k1 ^ 0x7465646279746573L;
        int end = off + len - (len & 7);
        for (int i = off; i < end; i += 8) {
            long m = littleEndian(data, i, 8);
            v3 ^= m;
            for (int r = 0; r < 2; r++) {
                v0 += v1; v1 = Long.rotateLeft(v1, 13); v1 ^= v0; v0 = Long.rotateLeft(v0, 32);
                v2 += v3; v3 = Long.rotateLeft(v3, 16); v3 ^= v2;
                v0 += v3; v3 = Long.rotateLeft(v3, 21); v3 ^= v0;
                v2 += v1; v1 = Long.rotateLeft(v1, 17); v1 ^= v2; v2 = Long.rotateLeft(v2, 32);
            }
            v0 ^= m;
        }
        long last = ((long) len << 56) | littleEndian(data, end, len & 7);
        return finish(v0, v1, v2, v3, last);
    }

    /**
     * SipHash-2-4 of a message of {@code len} bytes (0 to 8) given as one little-endian
     * word (byte 0 in the low bits; bits above {@code len} bytes must be zero). Equal to
     * {@link #hash(long, long, byte[], int, int)} of the same bytes, without an array.
     */
    static long hashWord(long k0, long k1, long word, int len) {
        long v0 = k0 ^ 0x736f6d6570736575L;
        long v1 = k1 ^ 0x646f72616e646f6dL;
        long v2 = k0 ^ 0x6c7967656e657261L;
        long v3 = k1 ^ 0x7465646279746573L;
        long last;
        if (len == 8) {
            v3 ^= word;
            for (int r = 0; r < 2; r++) {
                v0 += v1; v1 = Long.rotateLeft(v1, 13); v1 ^= v0; v0 = Long.rotateLeft(v0, 32);
                v2 += v3; v3 = Long.rotateLeft(v3, 16); v3 ^= v2;
                v0 += v3; v3 = Long.rotateLeft(v3, 21); v3 ^= v0;
                v2 += v1; v1 = Long.rotateLeft(v1, 17); v1 ^= v2; v2 = Long.rotateLeft(v2, 32);
            }
            v0 ^= word;
            last = 8L << 56;
        } else {
            last = ((long) len << 56) | word;
        }
        return finish(v0, v1, v2, v3, last);
    }

    private static long finish(long v0, long v1, long v2, long v3, long last) {
        v3 ^= last;
        for (int r = 0; r < 2; r++) {
            v0 += v1; v1 = Long.rotateLeft(v1, 13); v1 ^= v0; v0 = Long.rotateLeft(v0, 32);
            v2 += v3; v3 = Long.rotateLeft(v3, 16); v3 ^= v2;
            v0 += v3; v3 = Long.rotateLeft(v3, 21); v3 ^= v0;
            v2 += v1; v1 = Long.rotateLeft(v1, 17); v1 ^= v2; v2 = Long.rotateLeft(v2, 32);
        }
        v0 ^= last;
        v2 ^= 0xff;
        for (int r = 0; r < 4; r++) {
            v0 += v1; v1 = Long.rotateLeft(v1, 13); v1 ^= v0; v0 = Long.rotateLeft(v0, 32);
            v2 += v3; v3 = Long.rotateLeft(v3, 16); v3 ^= v2;
            v0 += v3; v3 = Long.rotateLeft(v3, 21); v3 ^= v0;
            v2 += v1; v1 = Long.rotateLeft(v1, 17); v1 ^= v2; v2 = Long.rotateLeft(v2, 32);
        }
        return v0 ^ v1 ^ v2 ^ v3;
    }

    /** {@code n} (0 to 8) bytes from {@code at}, little-endian. */
    static long littleEndian(byte[] data, int at, int n) {
        long word = 0;
        for (int i = n - 1; i >= 0; i--) {
            word = (word << 8) | (data[at + i] & 0xffL);
        }
        return word;
    }
}
