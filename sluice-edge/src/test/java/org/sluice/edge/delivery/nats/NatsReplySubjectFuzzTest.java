package org.sluice.edge.delivery.nats;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import org.junit.jupiter.api.Tag;

/**
 * Fuzz target for the subject a reply arrives on ({@link NatsTransport#replyNumber}): any
 * text after any prefix length. The contract: it never throws, and it names an attempt only
 * when the rest of the subject is exactly that number's decimal digits (1 to 18 of them, no
 * sign, no other script's digits); anything else names nothing (-1), so a stray or forged
 * reply can only be dropped.
 */
@Tag("fuzz")
class NatsReplySubjectFuzzTest {

    @FuzzTest(maxDuration = "30s")
    void aReplySubjectNamesExactlyItsDigitsOrNothing(FuzzedDataProvider data) {
        int from = data.consumeInt(0, 40);
        String subject = data.consumeRemainingAsString();
        if (from > subject.length()) {
            from = subject.length();
        }
        long n = NatsTransport.replyNumber(subject, from);
        String rest = subject.substring(from);
        if (n >= 0) {
            assertThat(rest).matches("[0-9]{1,18}");
            assertThat(Long.parseLong(rest)).isEqualTo(n);
        } else {
            assertThat(n).isEqualTo(-1);
            assertThat(rest.matches("[0-9]{1,18}")).as(rest).isFalse();
        }
    }
}
