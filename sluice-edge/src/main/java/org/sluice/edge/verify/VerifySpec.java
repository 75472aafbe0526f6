package org.sluice.edge.verify;

import java.util.List;

/**
 * A source's {@code verify:} block as configured.
 *
 * @param scheme           github | stripe | shopify | slack | standard_webhooks | hmac | none
 * @param secrets          up to 8 secrets, tried in order (rotation); empty for {@code none}
 * @param toleranceSeconds accepted clock skew for timestamped schemes (default 300)
 * @param header           {@code hmac} only: the header carrying the signature
 * @param prefix           {@code hmac} only: a prefix stripped from the header value (may be empty)
 * @param algorithm        {@code hmac} only: sha256 | sha512 | sha1
 * @param encoding         {@code hmac} only: hex | base64
 */
public record VerifySpec(
        String scheme,
        List<String> secrets,
        int toleranceSeconds,
        String header,
        String prefix,
        String algorithm,
        String encoding) {

    public VerifySpec {
        secrets = List.copyOf(secrets);
    }

    /** Never prints a secret: only how many there are and their lengths. */
    @Override
    public String toString() {
        StringBuilder lengths = new StringBuilder();
        for (String secret : secrets) {
            lengths.append(lengths.length() == 0 ? "" : ",").append(secret == null ? 0 : secret.length());
        }
        return "VerifySpec[scheme=" + scheme + ", secrets=" + secrets.size() + " redacted (lengths " + lengths
                + "), toleranceSeconds=" + toleranceSeconds + ", header=" + header + ", prefix=" + prefix
                + ", algorithm=" + algorithm + ", encoding=" + encoding + "]";
    }
}
