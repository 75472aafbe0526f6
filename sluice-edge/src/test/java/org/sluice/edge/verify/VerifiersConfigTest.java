package org.sluice.edge.verify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Every configuration the factory refuses, with its exact message; secrets never appear in one. */
class VerifiersConfigTest {

    static final String P = "sources.gh-acme.verify";

    static VerifySpec spec(String scheme, List<String> secrets) {
        return new VerifySpec(scheme, secrets, 300, null, null, null, null);
    }

    static VerifySpec hmac(String header, String prefix, String algorithm, String encoding) {
        return new VerifySpec("hmac", List.of("s3cret"), 300, header, prefix, algorithm, encoding);
    }

    static void refused(VerifySpec spec, String message) {
        assertThatThrownBy(() -> Verifiers.create(spec, P)).isInstanceOf(IllegalArgumentException.class).hasMessage(message);
    }

    @Test
    void emptySecret() {
        refused(spec("github", List.of("")), "sources.gh-acme.verify.secrets[0] must be a non-empty secret, got \"\"");
        refused(spec("stripe", List.of("whsec_ok", "")), "sources.gh-acme.verify.secrets[1] must be a non-empty secret, got \"\"");
    }

    @Test
    void blankSecret() {
        refused(spec("github", List.of("   ")), "sources.gh-acme.verify.secrets[0] must be a non-empty secret, got a blank value");
    }

    @Test
    void undecodableStandardWebhooksSecret() {
        String secret = "whsec_not*base64";
        String message = "sources.gh-acme.verify.secrets[0] must be base64 after an optional \"whsec_\" prefix for scheme "
                + "standard_webhooks, got a 16-character value (redacted)";
        refused(spec("standard_webhooks", List.of(secret)), message);
        assertThat(message).doesNotContain("not*base64");
    }

    @Test
    void standardWebhooksSecretThatDecodesToNothing() {
        refused(spec("standard_webhooks", List.of("whsec_")), "sources.gh-acme.verify.secrets[0] must be base64 after an optional "
                + "\"whsec_\" prefix for scheme standard_webhooks, got a 6-character value (redacted)");
    }

    @Test
    void moreThanEightSecrets() {
        refused(spec("github", Collections.nCopies(9, "k")), "sources.gh-acme.verify.secrets must hold at most 8 secrets, got 9");
        assertThat(Verifiers.create(spec("github", Collections.nCopies(8, "k")), P)).isNotNull();
    }

    @Test
    void unknownScheme() {
        refused(spec("foo", List.of("k")), "sources.gh-acme.verify.scheme must be one of github, stripe, shopify, slack, "
                + "standard_webhooks, hmac, none, got \"foo\"");
        refused(spec(null, List.of("k")), "sources.gh-acme.verify.scheme must be one of github, stripe, shopify, slack, "
                + "standard_webhooks, hmac, none, got null");
        refused(spec("GitHub", List.of("k")), "sources.gh-acme.verify.scheme must be one of github, stripe, shopify, slack, "
                + "standard_webhooks, hmac, none, got \"GitHub\"");
    }

    @Test
    void schemeNeedingSecretsWithNone() {
        for (String scheme : List.of("github", "stripe", "shopify", "slack", "standard_webhooks")) {
            refused(spec(scheme, List.of()), "sources.gh-acme.verify.secrets must hold at least one secret for scheme " + scheme + ", got []");
        }
        refused(new VerifySpec("hmac", List.of(), 300, "X-Sig", null, null, null),
                "sources.gh-acme.verify.secrets must hold at least one secret for scheme hmac, got []");
    }

    @Test
    void noneWithSecrets() {
        refused(spec("none", List.of("k")), "sources.gh-acme.verify.secrets must be empty for scheme none, got 1 secret");
        refused(spec("none", List.of("k", "j")), "sources.gh-acme.verify.secrets must be empty for scheme none, got 2 secrets");
    }

    @Test
    void toleranceBelowOne() {
        refused(new VerifySpec("stripe", List.of("k"), 0, null, null, null, null),
                "sources.gh-acme.verify.tolerance_seconds must be an integer of at least 1, got 0");
        refused(new VerifySpec("slack", List.of("k"), -5, null, null, null, null),
                "sources.gh-acme.verify.tolerance_seconds must be an integer of at least 1, got -5");
    }

    @Test
    void hmacWithoutHeader() {
        refused(hmac(null, "sha256=", "sha256", "hex"), "sources.gh-acme.verify.header must be set for scheme hmac, got null");
    }

    @Test
    void hmacWithInvalidHeaderName() {
        refused(hmac("X Signature", null, null, null), "sources.gh-acme.verify.header must be an HTTP header name, got \"X Signature\"");
        refused(hmac("", null, null, null), "sources.gh-acme.verify.header must be an HTTP header name, got \"\"");
        refused(hmac("X-Sig:", null, null, null), "sources.gh-acme.verify.header must be an HTTP header name, got \"X-Sig:\"");
    }

    @Test
    void hmacWithBadAlgorithm() {
        refused(hmac("X-Sig", null, "md5", "hex"), "sources.gh-acme.verify.algorithm must be one of sha256, sha512, sha1, got \"md5\"");
        refused(hmac("X-Sig", null, "SHA256", "hex"), "sources.gh-acme.verify.algorithm must be one of sha256, sha512, sha1, got \"SHA256\"");
    }

    @Test
    void hmacWithBadEncoding() {
        refused(hmac("X-Sig", null, "sha256", "b64"), "sources.gh-acme.verify.encoding must be one of hex, base64, got \"b64\"");
    }

    @Test
    void headerOrPrefixOnAFixedScheme() {
        refused(new VerifySpec("github", List.of("k"), 300, "X-Sig", null, null, null),
                "sources.gh-acme.verify.header is only for scheme hmac, got \"X-Sig\" with scheme github");
        refused(new VerifySpec("shopify", List.of("k"), 300, null, "sha256=", null, null),
                "sources.gh-acme.verify.prefix is only for scheme hmac, got \"sha256=\" with scheme shopify");
        // an empty prefix, or algorithm/encoding defaults a loader may fill in, are harmless
        assertThat(Verifiers.create(new VerifySpec("github", List.of("k"), 300, null, "", "sha256", "hex"), P)).isNotNull();
    }

    @Test
    void noMessageEverContainsASecret() {
        String secret = "whsec_!!top-secret!!";
        assertThatThrownBy(() -> Verifiers.create(spec("standard_webhooks", List.of(secret)), P))
                .hasMessageNotContaining("top-secret");
        assertThatThrownBy(() -> Verifiers.create(spec("none", List.of("top-secret")), P))
                .hasMessageNotContaining("top-secret");
        assertThatThrownBy(() -> Verifiers.create(spec("github", Collections.nCopies(9, "top-secret")), P))
                .hasMessageNotContaining("top-secret");
    }

    @Test
    void everyValidSchemeBuilds() {
        for (String scheme : Verifiers.SCHEMES) {
            VerifySpec spec = switch (scheme) {
                case "none" -> spec("none", List.of());
                case "hmac" -> hmac("X-Sig", null, null, null);
                case "standard_webhooks" -> spec(scheme, List.of("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"));
                default -> spec(scheme, List.of("k"));
            };
            assertThat(Verifiers.create(spec, P)).as(scheme).isNotNull();
        }
    }
}
