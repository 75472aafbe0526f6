package org.sluice.edge.verify;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The one copy of RFC 9110's character rules ({@link HttpTokens}), checked against the RFC's
 * own definition for every byte value, as the request path uses it.
 */
class HttpTokensTest {

    @Test
    void aTcharIsALetterADigitOrOneOfFifteenMarks() {
        String marks = "!#$%&'*+-.^_`|~";
        for (int c = -128; c < 512; c++) {
            boolean expected = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || (c >= 0 && c < 128 && marks.indexOf(c) >= 0);
            assertThat(HttpTokens.isTchar(c)).as("char %d", c).isEqualTo(expected);
        }
    }

    @Test
    void aTokenIsOneOrMoreTchars() {
        assertThat(HttpTokens.isToken("X-Hub-Signature-256")).isTrue();
        assertThat(HttpTokens.isToken("!#$%&'*+-.^_`|~")).isTrue();
        assertThat(HttpTokens.isToken("")).isFalse();
        assertThat(HttpTokens.isToken(null)).isFalse();
        assertThat(HttpTokens.isToken("Bad Name")).isFalse();
        assertThat(HttpTokens.isToken("Bad:Name")).isFalse();
        assertThat(HttpTokens.isToken("caf\u00e9")).isFalse();
    }

    @Test
    void aFieldValueHoldsNoControlByteButTab() {
        for (int c = 0; c < 256; c++) {
            boolean expected = c == '\t' || (c >= 0x20 && c != 0x7f);
            assertThat(HttpTokens.isFieldValueByte(c)).as("byte %d", c).isEqualTo(expected);
        }
        assertThat(HttpTokens.isFieldValueByte(0x100)).isFalse();
    }
}
