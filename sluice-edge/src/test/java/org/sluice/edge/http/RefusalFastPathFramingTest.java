package org.sluice.edge.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.sluice.core.Limit;
import org.sluice.edge.admission.NodeLimits;
import org.sluice.edge.admission.RefusalScope;
import org.sluice.edge.config.RefusedBody;
import org.sluice.edge.verify.VerifyOutcome;
import org.sluice.testkit.ManualClock;

/**
 * {@link RefusalFastPath} in front of the real codec, fed one read at a time: a head that has
 * not all arrived is kept (nothing answered, nothing passed on) until it has, then answered
 * from its bytes; a request the address may send goes on to the codec untouched.
 */
class RefusalFastPathFramingTest {

    private static final InetAddress CLIENT = Wire.ip("127.0.0.9");
    private static final SourceRoute SOURCE =
            new SourceRoute("a", null, (headers, body, now) -> VerifyOutcome.OK, (headers, body) -> null);

    private final ManualClock clock = new ManualClock(0);
    private final IngestMetrics metrics = Wire.metrics();
    private final NodeLimits limits = new NodeLimits(Optional.of(Limit.of(1, 1)), Optional.empty(), Map.of());

    private EmbeddedChannel connection() {
        RefusalFastPath.Shared shared = new RefusalFastPath.Shared(limits, clock, RefusedBody.CLOSE_IF_INCOMPLETE,
                metrics, tenant -> 1 << 20, address -> false, new Router("/hooks", false, Map.of("a", SOURCE)), 8192);
        InOrderGate gate = new InOrderGate();
        return Wire.channel(CLIENT, new RefusalFastPath(shared, gate), new HttpServerCodec(), gate);
    }

    private static ByteBuf ascii(String s) {
        return Unpooled.copiedBuffer(s, StandardCharsets.US_ASCII);
    }

    private static String text(ByteBuf bytes) {
        try {
            return bytes.toString(StandardCharsets.US_ASCII);
        } finally {
            bytes.release();
        }
    }

    @Test
    void aHeadSplitOverTwoReadsIsKeptUntilItIsWholeThenRefused() {
        assertThat(limits.chargeAddress(CLIENT, clock.nanoTime())).isZero(); // the address's burst of one, spent
        EmbeddedChannel channel = connection();

        channel.writeInbound(ascii("POST /hooks/a HTTP/1.1\r\nHost: t\r\nCont"));
        assertThat((Object) channel.readOutbound()).as("nothing answered for half a head").isNull();
        assertThat((Object) channel.readInbound()).as("nothing handed to the codec").isNull();

        channel.writeInbound(ascii("ent-Length: 0\r\n\r\n"));
        String answer = text(channel.readOutbound());
        assertThat(answer).startsWith("HTTP/1.1 429 ").contains("\"scope\":\"ip\"").doesNotContain("Connection: close");
        assertThat((Object) channel.readInbound()).isNull();
        assertThat(metrics.count(RefusalScope.IP)).isEqualTo(1.0);
        assertThat(metrics.count(IngestOutcome.RATE_LIMITED)).isEqualTo(1.0);
        assertThat(channel.isOpen()).isTrue();
    }

    @Test
    void aRequestTheAddressMaySendGoesOnToTheCodecAndIsNotCharged() {
        EmbeddedChannel channel = connection();

        channel.writeInbound(ascii("POST /hooks/a HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\n\r\n{}"));
        Object head = channel.readInbound();
        assertThat(head).isInstanceOf(HttpRequest.class);
        Object body = channel.readInbound();
        assertThat(body).isInstanceOf(LastHttpContent.class);
        ReferenceCountUtil.release(body);
        assertThat((Object) channel.readOutbound()).isNull();
        // only asked, never charged: the pipeline's one charge still finds the burst whole
        assertThat(limits.chargeAddress(CLIENT, clock.nanoTime())).isZero();
    }
}
