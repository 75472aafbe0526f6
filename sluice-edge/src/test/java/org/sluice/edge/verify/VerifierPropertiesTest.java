package org.sluice.edge.verify;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.constraints.StringLength;

/** For any body and secret: what Signatures signs verifies, and any single flipped byte does not. */
class VerifierPropertiesTest {

    static final long NOW = 1_764_676_800L;

    @Provide
    Arbitrary<VerifySpec> shapes() {
        return Arbitraries.of(
                new VerifySpec("github", List.of("x"), 300, null, null, null, null),
                new VerifySpec("stripe", List.of("x"), 300, null, null, null, null),
                new VerifySpec("shopify", List.of("x"), 300, null, null, null, null),
                new VerifySpec("slack", List.of("x"), 300, null, null, null, null),
                new VerifySpec("hmac", List.of("x"), 300, "X-Sig", "v=", "sha512", "base64"),
                new VerifySpec("hmac", List.of("x"), 300, "X-Sig", null, "sha1", "hex"));
    }

    @Property(tries = 300)
    void signedVerifiesAndAnyFlippedByteDoesNot(@ForAll("shapes") VerifySpec shape,
                                                 @ForAll("secrets") String secret,
                                                 @ForAll @Size(min = 1, max = 300) byte[] body,
                                                 @ForAll("index") int flipSeed) {
        VerifySpec spec = new VerifySpec(shape.scheme(), List.of(secret), 300, shape.header(), shape.prefix(),
                shape.algorithm(), shape.encoding());
        Verifier v = Verifiers.create(spec, "p");
        TestHeaders headers = TestHeaders.of(Signatures.headers(spec, secret, body, NOW));
        assertThat(v.verify(headers, body, NOW)).isEqualTo(VerifyOutcome.OK);

        byte[] flipped = body.clone();
        flipped[Math.floorMod(flipSeed, body.length)] ^= 0x01;
        assertThat(v.verify(headers, flipped, NOW)).isEqualTo(VerifyOutcome.NO_MATCH);
    }

    @Provide
    Arbitrary<String> secrets() {
        return Arbitraries.strings().ofMinLength(1).ofMaxLength(40).filter(s -> !s.isBlank());
    }

    @Provide
    Arbitrary<Integer> index() {
        return Arbitraries.integers();
    }

    @Property(tries = 100)
    void standardWebhooksSignedVerifies(@ForAll @Size(min = 1, max = 64) byte[] key,
                                        @ForAll @StringLength(min = 1, max = 30) String idTail,
                                        @ForAll @Size(max = 300) byte[] body) {
        String secret = "whsec_" + SignatureEncoding.toBase64(key);
        String id = "msg_" + Integer.toHexString(idTail.hashCode());
        VerifySpec spec = new VerifySpec("standard_webhooks", List.of(secret), 300, null, null, null, null);
        TestHeaders headers = TestHeaders.of(Signatures.headers(spec, secret, body, NOW, id));
        assertThat(Verifiers.create(spec, "p").verify(headers, body, NOW)).isEqualTo(VerifyOutcome.OK);
    }
}
