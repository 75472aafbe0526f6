package org.sluice.shm;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.CharRange;
import net.jqwik.api.constraints.LongRange;

class BucketWordTest {

    @Property
    void signedDifferenceSurvivesTheWrap(@ForAll long now, @ForAll @LongRange(min = -(1L << 39) + 1, max = (1L << 39) - 1) long d,
                                         @ForAll long hash) {
        long fp = BucketWord.fingerprint(hash);
        long word = BucketWord.encode(fp, now + d);
        assertThat(BucketWord.fingerprintOf(word)).isEqualTo(fp);
        assertThat(BucketWord.delta(word, now)).isEqualTo(d);
        assertThat(word).isNotZero();
    }

    @Property
    void ownerReadsDebtFullOrEmptyNeverMoreThanTolerance(@ForAll long now, @ForAll long stored,
                                                          @ForAll @LongRange(min = 0, max = 1L << 37) long tolerance) {
        long word = BucketWord.encode(1, stored);
        long tat = BucketWord.tat(word, now, tolerance);
        assertThat(tat - now).isBetween(0L, tolerance);
    }

    @Property
    void aStringHashesLikeItsUtf8Bytes(@ForAll @CharRange(from = '\u0000', to = '\uffff') String s, @ForAll long seed) {
        assertThat(new KeyHash(seed, ~seed).hash(s)).isEqualTo(new KeyHash(seed, ~seed).hash(s.getBytes(StandardCharsets.UTF_8)));
    }

    @Property
    void asciiStringsOfEveryLengthHashLikeTheirBytes(@ForAll @CharRange(from = ' ', to = '~') String s) {
        assertThat(new KeyHash(42, ~42).hash(s)).isEqualTo(new KeyHash(42, ~42).hash(s.getBytes(StandardCharsets.US_ASCII)));
    }

    @Property
    void mixedAsciiAndOtherTextHashesLikeItsBytes(@ForAll @CharRange(from = ' ', to = '~') String ascii,
                                                   @ForAll @CharRange(from = '\u0080', to = '\uffff') String other,
                                                   @ForAll @CharRange(from = ' ', to = '~') String tail) {
        String s = ascii + other + tail + ascii;
        assertThat(new KeyHash(7, ~7).hash(s)).isEqualTo(new KeyHash(7, ~7).hash(s.getBytes(StandardCharsets.UTF_8)));
    }

    @Property
    void fingerprintsAreNeverZero(@ForAll long hash) {
        assertThat(BucketWord.fingerprint(hash)).isBetween(1L, (1L << 24) - 1);
    }
}
