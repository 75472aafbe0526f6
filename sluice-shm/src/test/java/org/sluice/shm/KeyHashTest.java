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
 * the byte path) against a plain byte-by-byte statement of SipHash-c-d, for every length
 * from 0 to 40 and every kind of character; that statement against published test
 * vectors of SipHash-2-4 and SipHash-1-3; and the values pinned since layout version 2.
 */
class KeyHashTest {

    // the values of layout versions 2 and 3 (3 changed the counters only), computed outside Java from the paper's definition of SipHash-1-3
    private static final long PIN_EMPTY = 0xae0da5bdcd5e534bL;
    private static final long PIN_ABC = 0x1e5b6543b945dc4fL;
    private static final long PIN_ABCDEFGH = 0x12d8c08c2ee9e620L;
    private static final long PIN_ADDRESS = 0x8d79571648c93146L;
    private static final long PIN_CLIENT = 0xe8484c5b2221b840L;
    private static final long PIN_TENANT = 0x979f297588919406L;
    private static final long PIN_CJK = 0x430f1e092198ac01L;
    private static final long PIN_EMOJI = 0x05baa402c44b20baL;
    private static final long PIN_LONE = 0xb272f77a75d90ae7L;
    private static final long PIN_ABCDEFG = 0xa878a2bd58fc73b3L;
    private static final long PIN_ABCD = 0x2b722dba445c0659L;

    /** SipHash with {@code c} compression and {@code d} finalisation rounds, one byte at a time, as the paper states it. */
    static long sipHash(int c, int d, long k0, long k1, byte[] message) {
        long[] v = {k0 ^ 0x736f6d6570736575L, k1 ^ 0x646f72616e646f6dL, k0 ^ 0x6c7967656e657261L, k1 ^ 0x7465646279746573L};
        int whole = message.length - message.length % 8;
        for (int i = 0; i <= whole; i += 8) { // the words, then the last one with the length
            long m = i == whole ? (long) (message.length & 0xff) << 56 : 0;
            for (int j = 0; j < 8 && i + j < message.length; j++) {
                m |= (message[i + j] & 0xffL) << (8 * j);
            }
            v[3] ^= m;
            for (int r = 0; r < c; r++) {
                sipRound(v);
            }
            v[0] ^= m;
        }
        v[2] ^= 0xff;
        for (int r = 0; r < d; r++) {
            sipRound(v);
        }
        return v[0] ^ v[1] ^ v[2] ^ v[3];
    }

    private static void sipRound(long[] v) {
        v[0] += v[1];
        v[1] = Long.rotateLeft(v[1], 13) ^ v[0];
        v[0] = Long.rotateLeft(v[0], 32);
        v[2] += v[3];
        v[3] = Long.rotateLeft(v[3], 16) ^ v[2];
        v[0] += v[3];
        v[3] = Long.rotateLeft(v[3], 21) ^ v[0];
        v[2] += v[1];
        v[1] = Long.rotateLeft(v[1], 17) ^ v[2];
        v[2] = Long.rotateLeft(v[2], 32);
    }

    /** The arena's hash as specified: SipHash-1-3 of the bytes. */
    static long reference(byte[] key, long k0, long k1) {
        return sipHash(1, 3, k0, k1, key);
    }

    private static byte[] counting(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) i;
        }
        return b;
    }

    /** The paper's SipHash-2-4 vectors: key 00 01 .. 0f, messages 00 01 .. of length 0 to 15. */
    @Example
    void theReferenceGivesThePublishedSipHash24Vectors() {
        long[] expected = {
            0x726fdb47dd0e0e31L, 0x74f839c593dc67fdL, 0x0d6c8009d9a94f5aL, 0x85676696d7fb7e2dL,
            0xcf2794e0277187b7L, 0x18765564cd99a68dL, 0xcbc9466e58fee3ceL, 0xab0200f58b01d137L,
            0x93f5f5799a932462L, 0x9e0082df0ba9e4b0L, 0x7a5dbbc594ddb9f3L, 0xf4b32f46226bada7L,
            0x751e8fbc860ee5fbL, 0x14ea5627c0843d90L, 0xf723ca908e7af2eeL, 0xa129ca6149be45e5L,
        };
        for (int n = 0; n < expected.length; n++) {
            assertThat(sipHash(2, 4, 0x0706050403020100L, 0x0f0e0d0c0b0a0908L, counting(n))).as("length %d", n).isEqualTo(expected[n]);
        }
    }

    /** SipHash-1-3 vectors of the reference C implementation: key all zero, messages 00 01 .. of length 0 to 9. */
    @Example
    void theReferenceGivesPublishedSipHash13Vectors() {
        long[] expected = {
            0xd1fba762150c532cL, 0x68a914128e01e473L, 0x010bac45c41e3669L, 0x4d4c9a4a8ef6e0adL,
            0x7cc43f98813e4dbdL, 0x5abe2169dff36275L, 0xe3c25f87624f1cdbL, 0x2f098ab0c751325aL,
            0xead411e67ebe2eeaL, 0x75927f9d95124362L,
        };
        for (int n = 0; n < expected.length; n++) {
            assertThat(reference(counting(n), 0, 0)).as("length %d", n).isEqualTo(expected[n]);
            assertThat(new KeyHash(0, 0).hash(counting(n))).as("length %d", n).isEqualTo(expected[n]);
        }
    }

    @Property
    void bytesHashAsTheReferenceSays(@ForAll @Size(max = 40) byte[] key, @ForAll long k0, @ForAll long k1) {
        assertThat(new KeyHash(k0, k1).hash(key)).isEqualTo(reference(key, k0, k1));
    }

    @Example
    void everyLengthFrom0To40HashesAsTheReferenceSays() {
        Random random = new Random(3);
        for (int n = 0; n <= 40; n++) {
            for (int round = 0; round < 50; round++) {
                byte[] key = new byte[n];
                random.nextBytes(key);
                long k0 = random.nextLong();
                long k1 = random.nextLong();
                assertThat(new KeyHash(k0, k1).hash(key)).as("length %d", n).isEqualTo(reference(key, k0, k1));
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
    void aStringHashesLikeItsUtf8Bytes(@ForAll("mixedText") String key, @ForAll long k0, @ForAll long k1) {
        byte[] utf8 = key.getBytes(StandardCharsets.UTF_8);
        KeyHash hash = new KeyHash(k0, k1);
        assertThat(hash.hash(key)).isEqualTo(hash.hash(utf8)).isEqualTo(reference(utf8, k0, k1));
    }

    @Example
    void oneNonAsciiCharacterAnywhereInAnAsciiKeyOfEveryLength() {
        KeyHash hash = new KeyHash(42, -7);
        List<String> others = List.of("\u00e9", "\u20ac", "\ud83d\ude00", "\ud800", "\udc00", "\u0080", "\uffff");
        for (int n = 1; n <= 40; n++) {
            for (int at = 0; at < n; at++) {
                for (String other : others) {
                    String key = "k".repeat(at) + other + "y".repeat(n - at - 1);
                    byte[] utf8 = key.getBytes(StandardCharsets.UTF_8);
                    assertThat(hash.hash(key)).as("%s", key).isEqualTo(reference(utf8, 42, -7));
                }
            }
            String ascii = "x".repeat(n);
            assertThat(hash.hash(ascii)).isEqualTo(reference(ascii.getBytes(StandardCharsets.US_ASCII), 42, -7));
        }
    }

    /**
     * The hash picks the slot, so it is part of the file layout: processes of different
     * builds sharing one arena must agree. These values are layout version 2's and 3's
     * (each also equals the reference); a change here needs a new layout version.
     */
    @Example
    void valuesOfLayoutVersion2() {
        assertThat(ArenaLayout.LAYOUT_VERSION).isEqualTo(3);
        KeyHash a = new KeyHash(42, -7);
        KeyHash b = new KeyHash(0x0706050403020100L, 0x0f0e0d0c0b0a0908L);
        assertThat(a.hash("")).isEqualTo(PIN_EMPTY);
        assertThat(a.hash("abc")).isEqualTo(PIN_ABC);
        assertThat(b.hash("abcdefgh")).isEqualTo(PIN_ABCDEFGH);
        assertThat(a.hash("203.0.113.7")).isEqualTo(PIN_ADDRESS);
        assertThat(b.hash("client-1a2b3c4d-1023")).isEqualTo(PIN_CLIENT);
        assertThat(a.hash("tenant/\u00e9t\u00e9")).isEqualTo(PIN_TENANT);
        assertThat(b.hash("\u65e5\u672c\u8a9e\u30ad\u30fc")).isEqualTo(PIN_CJK);
        assertThat(a.hash("emoji-\ud83d\ude00-x")).isEqualTo(PIN_EMOJI);
        assertThat(a.hash("lone-\ud800-high")).isEqualTo(PIN_LONE);
        assertThat(a.hash("abcdefg".getBytes(StandardCharsets.US_ASCII))).isEqualTo(PIN_ABCDEFG);
        assertThat(b.hash("abcd".getBytes(StandardCharsets.US_ASCII))).isEqualTo(PIN_ABCD);
    }
}
