package org.sluice.edge.delivery.nats;

import org.sluice.edge.delivery.AttemptOutcome;
import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.nats.client.Message;
import io.nats.client.api.PublishAck;
import io.nats.client.impl.NatsMessage;
import org.junit.jupiter.api.Tag;
import org.sluice.edge.delivery.AttemptResult;
import org.sluice.edge.delivery.Transport;

/**
 * Fuzz target for a broker's reply to a publish ({@link NatsTransport#verdict}): any bytes.
 * The contract: the verdict never throws and always has a result; a reply the byte check
 * takes for an ack ({@link NatsTransport#isPlainAck}) is one the client's own
 * {@link PublishAck} reads as an ack too (a stream name, a sequence from 1, no error), so
 * the shortcut never calls a delivery what the client would refuse.
 */
@Tag("fuzz")
class NatsReplyFuzzTest {

    @FuzzTest(maxDuration = "30s")
    void aReplyIsJudgedWithoutAnExceptionAndTheShortcutAgreesWithTheClient(FuzzedDataProvider data) {
        byte[] body = data.consumeBoolean()
                ? ("{\"stream\":\"" + data.consumeString(12) + (data.consumeBoolean() ? "\", \"seq\":" : "\",\"seq\":")
                        + data.consumeString(22)).getBytes(
                        java.nio.charset.StandardCharsets.UTF_8)
                : data.consumeRemainingAsBytes();
        Message reply = NatsMessage.builder().subject("_INBOX.fuzz").data(body).build();

        AttemptOutcome outcome = NatsTransport.verdict(reply, "hooks.acme.gh", 5000);
        assertThat(outcome).isNotNull();
        assertThat(outcome.result()).isNotNull();

        if (NatsTransport.isPlainAck(body)) {
            assertThat(outcome.result()).isInstanceOf(AttemptResult.Acknowledged.class);
            PublishAck ack;
            try {
                ack = new PublishAck(reply);
            } catch (Exception e) {
                throw new AssertionError("the byte check took for an ack what the client refuses: " + e, e);
            }
            assertThat(ack.getStream()).isNotEmpty();
            assertThat(ack.getSeqno()).isPositive();
            assertThat(ack.hasError()).isFalse();
        }
    }
}
