package org.sluice.shm;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.security.SecureRandom;

/**
 * SipHash-1-3 of a key's UTF-8 bytes under the arena's secret 128-bit key: a keyed hash
 * whose collisions a sender who chooses keys cannot compute without the key. A
 * {@code String} key hashes exactly like {@code key.getBytes(UTF_8)} (including the
 * {@code '?'} that Java writes for an unpaired surrogate) without allocating the array,
 * so both key types reach the same bucket.
 *
 * <h2>The function</h2>
 * SipHash (Aumasson and Bernstein, 2012) with one compression round per 8-byte word and
 * three finalisation rounds, the variant hash tables use (SipHash-2-4 costs more per
 * check, see docs/bench-notes/shm.md, "The keyed key hash"; core's {@code SipHash} is 2-4
 * and package-private, and its byte-array-only interface cannot hash a {@code String}
 * without encoding it). The
 * message is taken in little-endian 8-byte words; the last word holds the 0 to 7
 * remaining bytes and, in its top byte, the length modulo 256. The key halves
 * {@code k0}, {@code k1} are random per arena ({@link SecureRandom}) and stored in its
 * header, so every process that maps the arena hashes alike and no one who cannot read
 * the file can predict which keys share a group or a bucket. The value is part of the
 * file's layout (it picks the slot): any change to it needs a new layout version.
 *
 * <h2>Why not the earlier hash</h2>
 * Layout version 1 used a MurmurHash3-style mix under a random 64-bit seed. A seed does
 * not make such a function keyed: a difference in one word can be steered through its
 * rotate-multiply-add step so that it cancels in the next word whatever the seed is, and
 * docs/shm.md shows two such keys sharing one bucket in every arena.
 * {@code HashFloodingTest} keeps that demonstration.
 *
 * <h2>Speed</h2>
 * The byte path reads whole 8-byte words and takes a short tail with one overlapping
 * 8-byte read ending at the last byte, shifted down, rather than byte by byte. The
 * {@code String} path packs 8 characters per word while they are ASCII (one byte each in
 * UTF-8) and only falls back to encoding character by character from the first word that
 * is not. The four state words live in local variables (the JIT keeps them in
 * registers), so a compression round is spelled out where a word is absorbed rather than
 * called: Java cannot return four longs without an allocation.
 */
final class KeyHash {

    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INTS = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    private final long k0;
    private final long k1;

    KeyHash(long k0, long k1) {
        this.k0 = k0;
        this.k1 = k1;
    }

    /** A new secret key from the platform's strong source of randomness. */
    static KeyHash random() {
        SecureRandom random = new SecureRandom();
        return new KeyHash(random.nextLong(), random.nextLong());
    }

    long k0() {
        return k0;
    }

    long k1() {
        return k1;
    }

    // ------------------------------------------------------------------ byte[] keys

    long hash(byte[] key) {
        long v0 = k0 ^ 0x736f6d6570736575L;
        long v1 = k1 ^ 0x646f72616e646f6dL;
        long v2 = k0 ^ 0x6c7967656e657261L;
        long v3 = k1 ^ 0x7465646279746573L;
        int n = key.length;
        int i = 0;
        for (; i + 8 <= n; i += 8) {
            long m = (long) LONGS.get(key, i);
            v3 ^= m; // one compression round
            v0 += v1; v1 = Long.rotateLeft(v1, 13); v1 ^= v0; v0 = Long.rotateLeft(v0, 32);
            v2 += v3; v3 = Long.rotateLeft(v3, 16); v3 ^= v2;
            v0 += v3; v3 = Long.rotateLeft(v3, 21); v3 ^= v0;
            v2 += v1; v1 = Long.rotateLeft(v1, 17); v1 ^= v2; v2 = Long.rotateLeft(v2, 32);
            v0 ^= m;
        }
        int rest = n - i; // 0..7 bytes left
        long last = (long) n << 56;
        if (rest > 0) {
            last |= tail(key, n, rest);
        }
        return finish(v0, v1, v2, v3, last);
    }

    /** The last {@code rest} (1..7) bytes of {@code key} as a little-endian long, zero above them. */
    private static long tail(byte[] key, int n, int rest) {
        if (n >= 8) { // the 8 bytes ending at the last one, the already hashed ones shifted out
            return (long) LONGS.get(key, n - 8) >>> ((8 - rest) << 3);
        }
        if (rest >= 4) { // 4..7 bytes: two overlapping ints
            long low = (int) INTS.get(key, 0) & 0xFFFF_FFFFL;
            long high = ((int) INTS.get(key, n - 4) & 0xFFFF_FFFFL) >>> ((8 - rest) << 3);
            return low | high << 32;
        }
        long t = key[0] & 0xFFL;
        if (rest > 1) {
            t |= (key[1] & 0xFFL) << 8;
            if (rest > 2) {
                t |= (key[2] & 0xFFL) << 16;
            }
        }
        return t;
    }

    // ------------------------------------------------------------------ String keys

    long hash(String key) {
        long v0 = k0 ^ 0x736f6d6570736575L;
        long v1 = k1 ^ 0x646f72616e646f6dL;
        long v2 = k0 ^ 0x6c7967656e657261L;
        long v3 = k1 ^ 0x7465646279746573L;
        int n = key.length();
        int i = 0;
        for (; i + 8 <= n; i += 8) { // whole words of 8 ASCII characters, one byte each
            long m = 0;
            int seen = 0;
            for (int j = 0; j < 8; j++) {
                int c = key.charAt(i + j);
                seen |= c;
                m |= (long) c << (j << 3);
            }
            if (seen >= 0x80) {
                return encoded(key, i, v0, v1, v2, v3);
            }
            v3 ^= m; // one compression round
            v0 += v1; v1 = Long.rotateLeft(v1, 13); v1 ^= v0; v0 = Long.rotateLeft(v0, 32);
            v2 += v3; v3 = Long.rotateLeft(v3, 16); v3 ^= v2;
            v0 += v3; v3 = Long.rotateLeft(v3, 21); v3 ^= v0;
            v2 += v1; v1 = Long.rotateLeft(v1, 17); v1 ^= v2; v2 = Long.rotateLeft(v2, 32);
            v0 ^= m;
        }
        long last = (long) n << 56;
        if (i < n) { // an ASCII tail of 1..7 characters goes into the last word
            long t = 0;
            int seen = 0;
            for (int j = i, shift = 0; j < n; j++, shift += 8) {
                int c = key.charAt(j);
                seen |= c;
                t |= (long) c << shift;
            }
            if (seen >= 0x80) {
                return encoded(key, i, v0, v1, v2, v3);
            }
            last |= t;
        }
        return finish(v0, v1, v2, v3, last);
    }

    /**
     * The hash from character {@code i} on, encoding each character to UTF-8 as
     * {@code String.getBytes(UTF_8)} does; the state holds the characters before
     * {@code i}, all ASCII (so {@code i} bytes, a whole number of words).
     */
    private static long encoded(String key, int i, long v0, long v1, long v2, long v3) {
        int n = key.length();
        long acc = 0;
        int bits = 0; // bits filled in acc
        long length = i;
        for (; i < n; i++) {
            int c = key.charAt(i);
            long bytes;
            int count;
            if (c < 0x80) {
                bytes = c;
                count = 1;
            } else if (c < 0x800) {
                bytes = (0xC0 | (c >> 6)) | (long) (0x80 | (c & 0x3F)) << 8;
                count = 2;
            } else if (Character.isSurrogate((char) c)) {
                if (Character.isHighSurrogate((char) c) && i + 1 < n && Character.isLowSurrogate(key.charAt(i + 1))) {
                    int cp = Character.toCodePoint((char) c, key.charAt(++i));
                    bytes = (0xF0 | (cp >> 18))
                            | (long) (0x80 | ((cp >> 12) & 0x3F)) << 8
                            | (long) (0x80 | ((cp >> 6) & 0x3F)) << 16
                            | (long) (0x80 | (cp & 0x3F)) << 24;
                    count = 4;
                } else {
                    bytes = '?';
                    count = 1;
                }
            } else {
                bytes = (0xE0 | (c >> 12)) | (long) (0x80 | ((c >> 6) & 0x3F)) << 8 | (long) (0x80 | (c & 0x3F)) << 16;
                count = 3;
            }
            length += count;
            acc |= bytes << bits;
            int filled = bits + 8 * count;
            if (filled >= 64) {
                long m = acc;
                v3 ^= m; // one compression round
                v0 += v1; v1 = Long.rotateLeft(v1, 13); v1 ^= v0; v0 = Long.rotateLeft(v0, 32);
                v2 += v3; v3 = Long.rotateLeft(v3, 16); v3 ^= v2;
                v0 += v3; v3 = Long.rotateLeft(v3, 21); v3 ^= v0;
                v2 += v1; v1 = Long.rotateLeft(v1, 17); v1 ^= v2; v2 = Long.rotateLeft(v2, 32);
                v0 ^= m;
                filled -= 64;
                acc = filled == 0 ? 0 : bytes >>> (8 * count - filled);
            }
            bits = filled;
        }
        return finish(v0, v1, v2, v3, length << 56 | acc); // bits < 64: acc is the 0..7 byte tail
    }

    /** Absorbs the last word, then three finalisation rounds. */
    private static long finish(long v0, long v1, long v2, long v3, long last) {
        v3 ^= last;
        v0 += v1; v1 = Long.rotateLeft(v1, 13); v1 ^= v0; v0 = Long.rotateLeft(v0, 32);
        v2 += v3; v3 = Long.rotateLeft(v3, 16); v3 ^= v2;
        v0 += v3; v3 = Long.rotateLeft(v3, 21); v3 ^= v0;
        v2 += v1; v1 = Long.rotateLeft(v1, 17); v1 ^= v2; v2 = Long.rotateLeft(v2, 32);
        v0 ^= last;
        v2 ^= 0xff;
        for (int r = 0; r < 3; r++) {
            v0 += v1; v1 = Long.rotateLeft(v1, 13); v1 ^= v0; v0 = Long.rotateLeft(v0, 32);
            v2 += v3; v3 = Long.rotateLeft(v3, 16); v3 ^= v2;
            v0 += v3; v3 = Long.rotateLeft(v3, 21); v3 ^= v0;
            v2 += v1; v1 = Long.rotateLeft(v1, 17); v1 ^= v2; v2 = Long.rotateLeft(v2, 32);
        }
        return v0 ^ v1 ^ v2 ^ v3;
    }
}
