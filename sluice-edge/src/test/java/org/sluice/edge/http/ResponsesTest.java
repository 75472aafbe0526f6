package org.sluice.edge.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpResponseEncoder;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.sluice.edge.admission.RefusalScope;

/** The refusal written as bytes is the encoder's answer, byte for byte. */
class ResponsesTest {

    @Test
    void theRateLimitedBytesAreWhatTheEncoderWritesForTheSameRefusal() {
        long[] waits = {1L, 999_999L, 1_000_000L, 1_000_001L, 999_000_000L, 1_000_000_000L, 1_000_000_001L,
            3_700_000_000L, 86_400_000_000_000L, Long.MAX_VALUE};
        for (RefusalScope scope : new RefusalScope[] {RefusalScope.IP, RefusalScope.NODE, RefusalScope.SOURCE}) {
            for (long wait : waits) {
                ByteBuf written = Unpooled.buffer();
                Responses.writeRateLimited(written, scope, wait);
                assertThat(written.toString(StandardCharsets.US_ASCII)).as("%s, %d ns", scope, wait)
                        .isEqualTo(encoded(scope, wait));
                written.release();
            }
        }
    }

    @Test
    void theAcceptedAnswerWritesItsIdAsJsonEscapesIt() {
        String uuid = "0193c1de-7a2b-7c3d-8e4f-0123456789ab";
        for (String id : new String[] {uuid, "a\"b\\c", "caf\u00e9", "tab\there"}) {
            io.netty.handler.codec.http.FullHttpResponse answer = Responses.accepted(id);
            assertThat(answer.status().code()).isEqualTo(202);
            String json = "{\"status\":\"accepted\",\"id\":" + Json.string(id) + "}";
            assertThat(answer.content().toString(StandardCharsets.UTF_8)).as(id).isEqualTo(json);
            assertThat(answer.headers().getInt("Content-Length")).isEqualTo(json.getBytes(StandardCharsets.UTF_8).length);
            assertThat(answer.trailingHeaders().isEmpty()).isTrue();
            answer.release();
        }
    }

    private static String encoded(RefusalScope scope, long wait) {
        EmbeddedChannel channel = new EmbeddedChannel(new HttpResponseEncoder());
        channel.writeOutbound(Responses.refused(scope, wait));
        StringBuilder out = new StringBuilder();
        for (Object part; (part = channel.readOutbound()) != null; ) {
            ByteBuf buf = (ByteBuf) part;
            out.append(buf.toString(StandardCharsets.US_ASCII));
            buf.release();
        }
        channel.finishAndReleaseAll();
        return out.toString();
    }
}
