package org.sluice.edge.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Base64;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.AlphaChars;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.NumericChars;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.constraints.StringLength;

class WebhookSignerPropertiesTest {

    @Property(tries = 300)
    void everySignatureVerifiesWithTheIndependentCheck(
            @ForAll @Size(min = 1, max = 100) byte[] key,
            @ForAll @AlphaChars @NumericChars @StringLength(min = 1, max = 40) String id,
            @ForAll @LongRange(min = 0, max = 99_999_999_999L) long timestamp,
            @ForAll @Size(max = 2000) byte[] body) {
        String secret = "whsec_" + Base64.getEncoder().encodeToString(key);
        String signature = WebhookSigner.fromSecret("destinations.p.signing_secret", secret).signature(id, timestamp, body);
        StandardWebhooksCheck check = new StandardWebhooksCheck(secret, 300);
        assertThat(check.genuine(id, Long.toString(timestamp), signature, body, timestamp)).isTrue();
        if (body.length > 0) {
            byte[] tampered = body.clone();
            tampered[0] ^= 1;
            assertThat(check.genuine(id, Long.toString(timestamp), signature, tampered, timestamp)).isFalse();
        }
    }
}
