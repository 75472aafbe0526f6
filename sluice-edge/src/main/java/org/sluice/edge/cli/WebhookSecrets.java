package org.sluice.edge.cli;

import java.security.SecureRandom;
import java.util.Base64;
import picocli.CommandLine;

/**
 * The {@code whsec_} secrets of the command line: {@code receive --secret} checks deliveries
 * with one, {@code serve --forward-secret} signs them with one, and {@code serve
 * --forward-to} without it makes one. Never prints a secret it refuses, only its length.
 */
final class WebhookSecrets {

    static final String PREFIX = "whsec_";
    /** Bytes of key in a generated secret: HMAC-SHA256's block wants no more, 24 is plenty. */
    static final int GENERATED_KEY_BYTES = 24;

    private static final SecureRandom RANDOM = new SecureRandom();

    private WebhookSecrets() {
    }

    /**
     * {@code value} as given when it is {@code whsec_} and the standard base64 of at least one
     * byte; else a usage error (exit 2) naming {@code option}.
     */
    static String check(CommandLine commandLine, String option, String value) {
        if (value.startsWith(PREFIX)) {
            try {
                if (Base64.getDecoder().decode(value.substring(PREFIX.length())).length > 0) {
                    return value;
                }
            } catch (IllegalArgumentException notBase64) {
                // falls through to the message
            }
        }
        throw new CommandLine.ParameterException(commandLine, option + " must be " + PREFIX
                + " followed by the standard base64 of a key, e.g. " + PREFIX + "c2VjcmV0LWtleQ==; got a value of "
                + value.length() + " characters (not printed)");
    }

    /** A fresh random secret. */
    static String generate() {
        byte[] key = new byte[GENERATED_KEY_BYTES];
        RANDOM.nextBytes(key);
        return PREFIX + Base64.getEncoder().encodeToString(key);
    }
}
