package org.sluice.shm;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * A seeded 64-bit hash of a key's UTF-8 bytes. A {@code String} key hashes exactly like
 * {@code key.getBytes(UTF_8)} (including the {@code '?'} that Java writes for an unpaired
 * surrogate) without allocating the array, so both key types reach the same bucket.
 *
 * <p>The bytes are taken in little-endian 8-byte chunks, the last one zero-padded; each
 * chunk is multiplied, rotated and folded into the state, the length is folded in last,
 * and a final avalanche (the MurmurHash3 finaliser constants) spreads every input bit
 * over the word. The seed is random per arena and stored in its header, so every process
 * hashes alike and a sender cannot precompute keys that collide. The value is part of the
 * file's layout (it picks the slot): any change to it needs a new layout version.
 *
 * <h2>Speed</h2>
 * The byte path reads whole 8-byte chunks and takes a short tail with one overlapping
 * 8-byte read ending at the last byte, shifted down, rather than byte by byte. The
 * {@code String} path packs 8 characters per chunk while they are ASCII (one byte each
 * in UTF-8) and only falls back to encoding character by character from the first chunk
 * that is not, so the common ASCII key costs one {@code charAt} per character and no
 * branch per character beyond the loop.
 */
final class KeyHash {

    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INTS = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long C1 = 0x87c37b91114253d5L;
    private static final long C2 = 0x4cf5ad432745937fL;

    private KeyHash() {
    }

    static long hash(byte[] key, long seed) {
        long h = seed;
        int n = key.length;
        int i = 0;
        for (; i + 8 <= n; i += 8) {
            h = mix(h, (long) LONGS.get(key, i));
        }
        int rest = n - i; // 0..7 bytes left
        if (rest > 0) {
            h = mix(h, tail(key, n, rest));
        }
        return finish(h, n);
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

    static long hash(String key, long seed) {
        long h = seed;
        int n = key.length();
        int i = 0;
        for (; i + 8 <= n; i += 8) { // whole chunks of 8 ASCII characters, one byte each
            long chunk = 0;
            int seen = 0;
            for (int j = 0; j < 8; j++) {
                int c = key.charAt(i + j);
                seen |= c;
                chunk |= (long) c << (j << 3);
            }
            if (seen >= 0x80) {
                return encoded(key, i, h);
            }
            h = mix(h, chunk);
        }
        if (i < n) { // an ASCII tail of 1..7 characters is the last, zero-padded chunk
            long chunk = 0;
            int seen = 0;
            for (int j = i, shift = 0; j < n; j++, shift += 8) {
                int c = key.charAt(j);
                seen |= c;
                chunk |= (long) c << shift;
            }
            if (seen >= 0x80) {
                return encoded(key, i, h);
            }
            h = mix(h, chunk);
        }
        return finish(h, n);
    }

    /**
     * The hash from character {@code i} on, encoding each character to UTF-8 as
     * {@code String.getBytes(UTF_8)} does; {@code h} holds the characters before
     * {@code i}, all ASCII (so {@code i} bytes, a whole number of chunks).
     */
    private static long encoded(String key, int i, long h) {
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
                h = mix(h, acc);
                filled -= 64;
                acc = filled == 0 ? 0 : bytes >>> (8 * count - filled);
            }
            bits = filled;
        }
        if (bits > 0) {
            h = mix(h, acc);
        }
        return finish(h, length);
    }

    private static long mix(long h, long chunk) {
        long k = Long.rotateLeft(chunk * C1, 31) * C2;
        return Long.rotateLeft(h ^ k, 27) * 5 + 0x52dce729;
    }

    private static long finish(long h, long length) {
        h ^= length;
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        h ^= h >>> 33;
        return h;
    }
}
