package org.sluice.shm;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.sluice.testkit.ManualClock;

/**
 * What a sender who chooses keys can do to a shared table, and that the keyed hash stops
 * it (issue: the layout 1 hash was not a keyed PRF).
 *
 * <p>Layout 1 hashed a key with a MurmurHash3-style step per 8-byte word,
 * {@code h = rotl(h ^ k(word), 27) * 5 + c} with {@code k(w) = rotl(w * C1, 31) * C2}, under
 * a random 64-bit seed as the starting {@code h}. The step carries a flip of bit 36 of
 * {@code h ^ k} to a flip of bit 63 alone, whatever {@code h} is (the rotation moves it to
 * the top, where multiplying by 5 and adding cannot carry it anywhere), and the next word
 * can cancel a flip of bit 63 exactly. {@code k} is a bijection anyone can invert, so for
 * any key of 16 bytes or more a partner key with the same 64-bit hash under every seed
 * follows from two words of it: same group, same fingerprint, one bucket.
 */
class HashFloodingTest {

    private static final long C1 = 0x87c37b91114253d5L;
    private static final long C2 = 0x4cf5ad432745937fL;

    private final ShmFiles files = new ShmFiles();
    private final ManualClock clock = new ManualClock(1_000_000_000_000L);

    @AfterEach
    void cleanup() throws Exception {
        files.close();
    }

    /** Layout 1's hash, as its KeyHashTest stated it, kept here only to attack it. */
    static long layout1Hash(byte[] key, long seed) {
        long h = seed;
        for (int i = 0; i < key.length; i += 8) {
            long chunk = 0;
            for (int j = 0; j < 8 && i + j < key.length; j++) {
                chunk |= (key[i + j] & 0xFFL) << (8 * j);
            }
            h = Long.rotateLeft(h ^ k(chunk), 27) * 5 + 0x52dce729;
        }
        h ^= key.length;
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        h ^= h >>> 33;
        return h;
    }

    private static long k(long word) {
        return Long.rotateLeft(word * C1, 31) * C2;
    }

    private static long kInverse(long k) {
        return Long.rotateRight(k * inverse(C2), 31) * inverse(C1);
    }

    /** The inverse of an odd number modulo 2^64 (Newton's iteration doubles the good bits). */
    private static long inverse(long odd) {
        long x = odd;
        for (int i = 0; i < 6; i++) {
            x *= 2 - odd * x;
        }
        return x;
    }

    /**
     * A key that layout 1 hashed exactly like {@code victim} under every seed, computed
     * without knowing the seed: word 0's {@code k} gets bit 36 flipped, word 1's bit 63.
     */
    static byte[] partnerUnderLayout1(byte[] victim) {
        ByteBuffer b = ByteBuffer.wrap(victim.clone()).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(0, kInverse(k(b.getLong(0)) ^ (1L << 36)));
        b.putLong(8, kInverse(k(b.getLong(8)) ^ (1L << 63)));
        return b.array();
    }

    private static final byte[] VICTIM = "tenant/acme-corp/orders".getBytes(StandardCharsets.UTF_8);

    @Test
    void layout1HashedAPrecomputedPartnerKeyLikeTheVictimUnderEverySeed() {
        byte[] partner = partnerUnderLayout1(VICTIM);
        assertThat(partner).isNotEqualTo(VICTIM).hasSameSizeAs(VICTIM);
        Random random = new Random(11);
        for (int i = 0; i < 100_000; i++) {
            long seed = random.nextLong();
            assertThat(layout1Hash(partner, seed)).as("seed %x", seed).isEqualTo(layout1Hash(VICTIM, seed));
        }
    }

    @Test
    void thePrecomputedPartnerDoesNotCollideUnderTheKeyedHash() {
        byte[] partner = partnerUnderLayout1(VICTIM);
        Random random = new Random(12);
        for (int i = 0; i < 100_000; i++) {
            KeyHash hash = new KeyHash(random.nextLong(), random.nextLong());
            assertThat(hash.hash(partner)).isNotEqualTo(hash.hash(VICTIM));
        }
    }

    /**
     * What the collision was worth: the partner spends the victim's bucket, so the victim
     * is refused though it sent nothing (the table's "more, never fewer" promise broken by
     * a sender). Under layout 1 the victim's first request here was refused.
     */
    @Test
    void aKeyBuiltToShareAVictimsBucketUnderLayout1CannotSpendItNow() {
        byte[] partner = partnerUnderLayout1(VICTIM);
        try (SharedArena arena = SharedArena.create(files.fresh(), 1 << 20)) {
            SharedRate rate = arena.rate("hooks", 3, Duration.ofMinutes(1), 4096, clock);
            for (int i = 0; i < 3; i++) {
                assertThat(rate.allow(partner)).isTrue();
            }
            assertThat(rate.allow(partner)).isFalse();
            for (int i = 0; i < 3; i++) {
                assertThat(rate.allow(VICTIM)).as("the victim's request %d", i + 1).isTrue();
            }
            assertThat(rate.allow(VICTIM)).isFalse();
        }
    }

    /**
     * Many keys at once: pairs of word changes compose, so one victim has 2^m partners in
     * a key of 16m bytes. Here 2^3 keys of 48 bytes, all one bucket under layout 1.
     */
    @Test
    void layout1PartnersComposeIntoManyKeysOnOneBucket() {
        byte[] base = "0123456789abcdef0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
        byte[][] keys = new byte[8][];
        for (int mask = 0; mask < 8; mask++) {
            byte[] key = base.clone();
            for (int pair = 0; pair < 3; pair++) {
                if ((mask & (1 << pair)) != 0) {
                    byte[] part = partnerUnderLayout1(Arrays.copyOfRange(key, 16 * pair, 16 * pair + 16));
                    System.arraycopy(part, 0, key, 16 * pair, 16);
                }
            }
            keys[mask] = key;
        }
        long seed = new Random(13).nextLong();
        KeyHash keyed = KeyHash.random();
        Set<Long> layout1 = new HashSet<>();
        Set<Long> now = new HashSet<>();
        for (byte[] key : keys) {
            layout1.add(layout1Hash(key, seed));
            now.add(keyed.hash(key));
        }
        assertThat(layout1).hasSize(1);
        assertThat(now).hasSize(8);
    }
}
