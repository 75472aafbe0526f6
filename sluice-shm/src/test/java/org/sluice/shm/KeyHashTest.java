package org.sluice.shm;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;

/**
 * The key hash: its fast paths (8 ASCII characters per step, the overlapping tail read of
 * the byte path) against a plain byte-by-byte statement of the same function, for every
 * length from 0 to 40 and every kind of character, and pinned to the values layout
 * version 1 files were written with.
 */
class KeyHashTest {

    /** The hash as specified, one byte at a time: little-endian 8-byte chunks, the last zero-padded. */
    static long reference(byte[] key, long seed) {
        long h = seed;
        for (int i = 0; i < key.length; i += 8) {
            long chunk = 0;
            for (int j = 0; j < 8 && i + j < key.length; j++) {
                chunk |= (key[i + j] & 0xFFL) << (8 * j);
            }
            long k = Long.rotateLeft(chunk * 0x87c37b91114253d5L, 31) * 0x4cf5ad432745937fL;
            h = Long.rotateLeft(h ^ k, 27) * 5 + 0x52dce729;
        }
        h ^= key.length;
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        h ^= h >>> 33;
        return h;
    }

    @Property
    void bytesHashAsTheReferenceSays(@ForAll @Size(max = 40) byte[] key, @ForAll long seed) {
        assertThat(KeyHash.hash(key, seed)).isEqualTo(reference(key, seed));
    }

    @Example
    void everyLengthFrom0To40HashesAsTheReferenceSays() {
        Random random = new Random(3);
        for (int n = 0; n <= 40; n++) {
            for (int round = 0; round < 50; round++) {
                byte[] key = new byte[n];
                random.nextBytes(key);
                long seed = random.nextLong();
                assertThat(KeyHash.hash(key, seed)).as("length %d", n).isEqualTo(reference(key, seed));
            }
        }
    }

    /** Strings of 0 to 40 characters mixing ASCII, two-, three- and four-byte characters, lone surrogates and '?'. */
    @Provide
    Arbitrary<String> mixedText() {
        Arbitrary<String> piece = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(12, Arbitraries.chars().range(' ', '~').map(String::valueOf)),
                net.jqwik.api.Tuple.of(2, Arbitraries.chars().range('\u0080', '\u07ff').map(String::valueOf)),
                net.jqwik.api.Tuple.of(2, Arbitraries.chars().range('\u0800', '\ud7ff').map(String::valueOf)),
                net.jqwik.api.Tuple.of(2, Arbitraries.integers().between(0x10000, 0x10FFFF).map(Character::toString)),
                net.jqwik.api.Tuple.of(1, Arbitraries.chars().range('\ud800', '\udfff').map(String::valueOf)),
                net.jqwik.api.Tuple.of(1, Arbitraries.of("?", "\u0000", "\u007f", "\u00ff", "\u0100")));
        return piece.list().ofMaxSize(40).map(parts -> String.join("", parts)).filter(s -> s.length() <= 40);
    }

    @Property(tries = 2000)
    void aStringHashesLikeItsUtf8Bytes(@ForAll("mixedText") String key, @ForAll long seed) {
        byte[] utf8 = key.getBytes(StandardCharsets.UTF_8);
        assertThat(KeyHash.hash(key, seed)).isEqualTo(KeyHash.hash(utf8, seed)).isEqualTo(reference(utf8, seed));
    }

    @Example
    void oneNonAsciiCharacterAnywhereInAnAsciiKeyOfEveryLength() {
        List<String> others = List.of("\u00e9", "\u20ac", "\ud83d\ude00", "\ud800", "\udc00", "\u0080", "\uffff");
        for (int n = 1; n <= 40; n++) {
            for (int at = 0; at < n; at++) {
                for (String other : others) {
                    String key = "k".repeat(at) + other + "y".repeat(n - at - 1);
                    byte[] utf8 = key.getBytes(StandardCharsets.UTF_8);
                    assertThat(KeyHash.hash(key, 42)).as("%s", key).isEqualTo(reference(utf8, 42));
                }
            }
            String ascii = "x".repeat(n);
            assertThat(KeyHash.hash(ascii, 42)).isEqualTo(reference(ascii.getBytes(StandardCharsets.US_ASCII), 42));
        }
    }

    /**
     * The hash picks the slot, so it is part of the file layout: processes of different
     * builds sharing one arena must agree. These values were taken from the first
     * released implementation (layout version 1); a change here needs a new layout version.
     */
    @Example
    void valuesOfLayoutVersion1() {
        assertThat(ArenaLayout.LAYOUT_VERSION).isEqualTo(1);
        assertThat(KeyHash.hash("", 42)).isEqualTo(0x810879608e4259ccL);
        assertThat(KeyHash.hash("abc", 42)).isEqualTo(0x01f83fcfc9ec2acaL);
        assertThat(KeyHash.hash("abcdefgh", -7)).isEqualTo(0xe8151eea3ada6b20L);
        assertThat(KeyHash.hash("203.0.113.7", 42)).isEqualTo(0x4d76715f597e2e1aL);
        assertThat(KeyHash.hash("client-1a2b3c4d-1023", -7)).isEqualTo(0x19e109b1b176009aL);
        assertThat(KeyHash.hash("tenant/\u00e9t\u00e9", 42)).isEqualTo(0x56fa361e62513e55L);
        assertThat(KeyHash.hash("\u65e5\u672c\u8a9e\u30ad\u30fc", -7)).isEqualTo(0xab139a1d337124c4L);
        assertThat(KeyHash.hash("emoji-\ud83d\ude00-x", 42)).isEqualTo(0x70f6492e1d494872L);
        assertThat(KeyHash.hash("lone-\ud800-high", 42)).isEqualTo(0xb62fb6a9c76ced2fL);
        assertThat(KeyHash.hash("abcdefg".getBytes(StandardCharsets.US_ASCII), 42)).isEqualTo(0x9373d626df7da686L);
        assertThat(KeyHash.hash("abcd".getBytes(StandardCharsets.US_ASCII), -7)).isEqualTo(0xdca7b59c4d69d5d6L);
    }
}
