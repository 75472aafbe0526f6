package org.sluice.edge.delivery.nats;

import org.sluice.edge.delivery.AttemptOutcome;
import static org.assertj.core.api.Assertions.assertThat;

import io.nats.client.Message;
import io.nats.client.impl.NatsMessage;
import java.nio.charset.StandardCharsets;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;
import org.sluice.edge.delivery.AttemptResult;
import org.sluice.edge.delivery.Transport;

/**
 * The verdict on a stream's reply to a publish ({@link NatsTransport#verdict}): the common
 * ack is recognised from its bytes, and every other reply reads as the client's own
 * {@code PublishAck} reads it. The acks here are written as nats-server writes them (a space
 * after the comma before {@code "seq"}, and after the colon of {@code "duplicate"}), and in
 * the compact form; {@code NatsTransportTest} holds the recognition to a real server's acks.
 */
class NatsReplyTest {

    private static Message reply(String json) {
        return NatsMessage.builder().subject("_INBOX.x").data(json.getBytes(StandardCharsets.US_ASCII)).build();
    }

    private static AttemptOutcome verdict(String json) {
        return NatsTransport.verdict(reply(json), "hooks.acme.gh", 5000);
    }

    private static boolean plain(String json) {
        return NatsTransport.isPlainAck(json.getBytes(StandardCharsets.US_ASCII));
    }

    @Test
    void theServersOwnAckAndDuplicateAckAreRecognisedFromTheirBytes() {
        assertThat(plain("{\"stream\":\"HOOKS\", \"seq\":42}")).isTrue();
        assertThat(plain("{\"stream\":\"HOOKS\", \"seq\":7,\"duplicate\": true}")).isTrue();
        assertThat(verdict("{\"stream\":\"HOOKS\", \"seq\":42}").result()).isInstanceOf(AttemptResult.Acknowledged.class);
        assertThat(verdict("{\"stream\":\"HOOKS\", \"seq\":7,\"duplicate\": true}").error()).isNull();
        // the shapes around them are left to the client's parse
        assertThat(plain("{\"stream\":\"HOOKS\",  \"seq\":42}")).isFalse();
        assertThat(plain("{\"stream\":\"HOOKS\", \"seq\":7,\"duplicate\":  true}")).isFalse();
        assertThat(plain("{\"stream\":\"HOOKS\", \"seq\":7,\"duplicate\": false}")).isFalse();
        assertThat(plain("{\"stream\":\"HOOKS\", \"domain\":\"hub\", \"seq\":9}")).isFalse();
        assertThat(verdict("{\"stream\":\"HOOKS\", \"domain\":\"hub\", \"seq\":9}").result()).isInstanceOf(AttemptResult.Acknowledged.class);
    }

    @Test
    void anAckAndADuplicateAckAreDeliveries() {
        assertThat(NatsTransport.isPlainAck("{\"stream\":\"HOOKS\",\"seq\":42}".getBytes(StandardCharsets.US_ASCII))).isTrue();
        assertThat(NatsTransport.isPlainAck("{\"stream\":\"HOOKS\",\"seq\":7,\"duplicate\":true}".getBytes(StandardCharsets.US_ASCII)))
                .isTrue();
        assertThat(verdict("{\"stream\":\"HOOKS\",\"seq\":42}").result()).isInstanceOf(AttemptResult.Acknowledged.class);
        assertThat(verdict("{\"stream\":\"HOOKS\",\"domain\":\"hub\",\"seq\":9}").result()).isInstanceOf(AttemptResult.Acknowledged.class);
        assertThat(verdict("{\"stream\":\"HOOKS\",\"seq\":42}").error()).isNull();
    }

    @Test
    void anAckWithASpaceOrInAnotherOrderIsReadByTheClientAndStillADelivery() {
        // not the byte shape recognised at once, so the client's parse decides: still an ack
        assertThat(NatsTransport.isPlainAck("{\"seq\":5,\"stream\":\"HOOKS\"}".getBytes(StandardCharsets.US_ASCII))).isFalse();
        assertThat(verdict("{\"seq\":5,\"stream\":\"HOOKS\"}").result()).isInstanceOf(AttemptResult.Acknowledged.class);
        assertThat(verdict("{ \"stream\": \"HOOKS\", \"seq\": 5 }").result()).isInstanceOf(AttemptResult.Acknowledged.class);
    }

    @Test
    void aMessageOverTheStreamsMaximumIsPermanentAndOtherJetStreamErrorsAreRetried() {
        AttemptOutcome tooLarge = verdict("{\"error\":{\"code\":400,\"err_code\":10054,\"description\":\"message size exceeds maximum allowed\"},\"stream\":\"HOOKS\",\"seq\":0}");
        assertThat(tooLarge.result()).isInstanceOf(AttemptResult.Permanent.class);
        assertThat(tooLarge.error()).contains("10054");
        AttemptOutcome noQuorum = verdict("{\"error\":{\"code\":503,\"err_code\":10008,\"description\":\"JetStream system temporarily unavailable\"}}");
        assertThat(noQuorum.result()).isEqualTo(AttemptResult.failed(AttemptResult.Failure.BROKER));
        assertThat(noQuorum.error()).contains("10008");
    }

    @Test
    void aReplyThatIsNoAckIsRetriedWithWhatItSaid() {
        assertThat(NatsTransport.isPlainAck("{\"stream\":\"HOOKS\",\"seq\":0}".getBytes(StandardCharsets.US_ASCII))).isFalse();
        assertThat(NatsTransport.isPlainAck(new byte[0])).isFalse();
        assertThat(NatsTransport.isPlainAck("{\"stream\":\"HOOKS\",\"seq\":".getBytes(StandardCharsets.US_ASCII))).isFalse();
        for (String notAnAck : new String[] {"", "not json", "{}", "{\"stream\":\"HOOKS\"}"}) {
            AttemptOutcome o = verdict(notAnAck);
            assertThat(o.result()).as(notAnAck).isEqualTo(AttemptResult.failed(AttemptResult.Failure.BROKER));
            assertThat(o.error()).as(notAnAck).isNotBlank();
        }
    }

    /** The attempt a reply names: the number after the inbox's prefix, by its definition (1 to 18 decimal digits, nothing else). */
    @Property(tries = 3000)
    void aReplySubjectNamesItsNumberOrNothing(@ForAll("replySubjects") String rest) {
        String subject = "_INBOX.abc." + rest;
        long expected = rest.matches("[0-9]{1,18}") ? Long.parseLong(rest) : -1;
        assertThat(NatsTransport.replyNumber(subject, "_INBOX.abc.".length())).as(subject).isEqualTo(expected);
    }

    @Provide
    Arbitrary<String> replySubjects() {
        return Arbitraries.oneOf(Arbitraries.longs().between(0, Long.MAX_VALUE).map(n -> Long.toString(n)),
                Arbitraries.strings().withChars("0123456789.-+ a\u0660".toCharArray()).ofMaxLength(21));
    }

    @Test
    void aReplySubjectShorterThanThePrefixNamesNothing() {
        assertThat(NatsTransport.replyNumber("_INBOX", "_INBOX.abc.".length())).isEqualTo(-1);
        assertThat(NatsTransport.replyNumber("_INBOX.abc.", "_INBOX.abc.".length())).isEqualTo(-1);
        assertThat(NatsTransport.replyNumber("_INBOX.abc.999999999999999999", 11)).isEqualTo(999_999_999_999_999_999L);
        assertThat(NatsTransport.replyNumber("_INBOX.abc.1000000000000000000", 11)).isEqualTo(-1);
    }
}
