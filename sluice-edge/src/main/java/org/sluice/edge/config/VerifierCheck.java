package org.sluice.edge.config;

import org.sluice.edge.dedupe.DedupeSpec;
import org.sluice.edge.verify.VerifySpec;

/**
 * Validates a source's verify and dedupe specs with the factories the server itself uses,
 * so that a secret the verifier cannot use (undecodable {@code whsec_} text, for one)
 * fails the boot here. Any secret that appears in a factory's message is replaced by its
 * redacted form before the message is reported.
 */
final class VerifierCheck {

    private VerifierCheck() {
    }

    /** True when the verify spec is usable; otherwise a problem is recorded under {@code v}'s path. */
    static boolean check(Section v, VerifySpec spec) {
        // The verifier factories (Verifiers.create) land separately; until then the shape
        // checks in SourceReader are all that run.
        return true;
    }

    /** The spec when the dedupe factory accepts it, else null with a problem recorded. */
    static DedupeSpec check(Section s, String path, DedupeSpec spec) {
        return spec;
    }

    /** {@code message} with every secret replaced by its redacted form. */
    static String scrub(String message, VerifySpec spec) {
        String out = message;
        for (String secret : spec.secrets()) {
            if (!secret.isEmpty()) {
                out = out.replace(secret, "<" + secret.length() + "-character secret, redacted>");
            }
        }
        return out;
    }
}
