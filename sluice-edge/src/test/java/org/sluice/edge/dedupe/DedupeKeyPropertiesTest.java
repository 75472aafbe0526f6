package org.sluice.edge.dedupe;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.StringLength;
import org.sluice.edge.dedupe.DedupeSpec.Kind;

class DedupeKeyPropertiesTest {

    @Property(tries = 500)
    void boundedKeysFitAndShortKeysAreUntouched(@ForAll @StringLength(max = 400) String key) {
        String bounded = DedupeKeys.bounded(key);
        int bytes = key.getBytes(StandardCharsets.UTF_8).length;
        assertThat(bounded.getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(DedupeKeys.MAX_KEY_BYTES);
        if (bytes <= DedupeKeys.MAX_KEY_BYTES) {
            assertThat(bounded).isEqualTo(key);
        } else {
            assertThat(bounded).matches("sha256:[0-9a-f]{64}");
        }
    }

    @Property(tries = 300)
    void anyIdWrittenAsAJsonStringComesBack(@ForAll("ids") String id,
                                            @ForAll @IntRange(min = 0, max = 5) int siblingsBefore) {
        StringBuilder body = new StringBuilder("{");
        for (int i = 0; i < siblingsBefore; i++) {
            body.append("\"f").append(i).append("\":{\"id\":[1,{\"x\":\"y\"}]},");
        }
        body.append("\"event\":{\"id\":").append(quote(id)).append("}}");
        String key = DedupeKeys.create(new DedupeSpec(Kind.JSON, "event.id"))
                .extract(name -> null, body.toString().getBytes(StandardCharsets.UTF_8));
        boolean malformed = id.chars().anyMatch(c -> c == 0xFFFD) || hasLoneSurrogate(id);
        if (malformed) {
            assertThat(key).isNull();
        } else {
            assertThat(key).isEqualTo(DedupeKeys.bounded(id));
        }
    }

    @Property(tries = 500)
    void bodySha256OfAnyBytesIsTheirDigestAndOneFlippedBitChangesIt(@ForAll @net.jqwik.api.constraints.Size(max = 4096) byte[] body,
                                                                   @ForAll int flipSeed,
                                                                   @ForAll @StringLength(max = 300) String headerValue)
            throws Exception {
        DedupeKeyExtractor x = DedupeKeys.create(new DedupeSpec(Kind.BODY_SHA256, null));
        String key = x.extract(name -> headerValue, body);
        assertThat(key).isEqualTo(java.util.HexFormat.of().formatHex(
                java.security.MessageDigest.getInstance("SHA-256").digest(body)));
        assertThat(DedupeKeys.bounded(key)).isEqualTo(key);
        if (body.length > 0) {
            byte[] flipped = body.clone();
            int bit = Math.floorMod(flipSeed, body.length * 8);
            flipped[bit / 8] ^= (byte) (1 << (bit % 8));
            assertThat(x.extract(name -> headerValue, flipped)).isNotEqualTo(key);
        }
    }

    @Provide
    Arbitrary<String> ids() {
        // every char, surrogates included (paired or not), and some U+FFFD
        return Arbitraries.strings().withCharRange('\u0000', '\uFFFF').ofMinLength(1).ofMaxLength(150);
    }

    private static boolean hasLoneSurrogate(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && (i + 1 == s.length() || !Character.isLowSurrogate(s.charAt(i + 1)))) {
                return true;
            }
            if (Character.isLowSurrogate(c) && (i == 0 || !Character.isHighSurrogate(s.charAt(i - 1)))) {
                return true;
            }
        }
        return false;
    }

    /** A JSON string literal, escaping every non-printable-ASCII char as \\uXXXX. */
    private static String quote(String s) {
        StringBuilder out = new StringBuilder("\"");
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20 || c > 0x7e) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.append('"').toString();
    }
}
