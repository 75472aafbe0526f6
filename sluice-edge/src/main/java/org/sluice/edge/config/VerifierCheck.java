package org.sluice.edge.config;

import org.sluice.edge.dedupe.DedupeKeys;
import org.sluice.edge.dedupe.DedupeSpec;
import org.sluice.edge.settings.Section;
import org.sluice.edge.verify.Verifiers;
import org.sluice.edge.verify.VerifySpec;

/**
 * Validates a source's verify and dedupe specs with the factories the server itself uses
 * ({@link Verifiers#create}, {@link DedupeKeys#create}), so that anything the server could
 * not build (an undecodable {@code whsec_} secret, a blank one) fails the boot here, with
 * the factory's message. Any secret that appears in such a message is replaced by its
 * redacted form before it is reported, whatever the factory printed.
 */
final class VerifierCheck {

    private VerifierCheck() {
    }

    /** True when the verify spec builds; otherwise a problem is recorded. */
    static boolean check(Section v, VerifySpec spec) {
        try {
            Verifiers.create(spec, v.path());
            return true;
        } catch (IllegalArgumentException e) {
            v.problem(scrub(String.valueOf(e.getMessage()), spec));
            return false;
        }
    }

    /** The spec when the dedupe factory accepts it, else null with a problem recorded. */
    static DedupeSpec check(Section s, String path, DedupeSpec spec) {
        try {
            DedupeKeys.create(spec, path);
            return spec;
        } catch (IllegalArgumentException e) {
            s.problem(String.valueOf(e.getMessage()));
            return null;
        }
    }

    /** {@code message} with every secret replaced by its redacted form. */
    static String scrub(String message, VerifySpec spec) {
        String out = message;
        for (String secret : spec.secrets()) {
            if (!secret.isBlank()) {
                out = out.replace(secret, "<a " + secret.length() + "-character secret, redacted>");
            }
        }
        return out;
    }
}
