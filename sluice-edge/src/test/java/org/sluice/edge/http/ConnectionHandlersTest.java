package org.sluice.edge.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.sluice.edge.http.Wire.body;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import java.net.InetAddress;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The per-connection handlers that are not about one request: {@link InOrderGate} (one
 * request in the server at a time, answers in order) and {@link ConnectionsPerAddress} (the
 * cap on a peer's open connections), each in a real Netty pipeline.
 */
class ConnectionHandlersTest {

    @Nested
    class Gate {

        private final InOrderGate gate = new InOrderGate();
        private final EmbeddedChannel channel = Wire.channel(gate);

        @Test
        void aPipelinedRequestWaitsUntilTheOneBeforeItIsAnswered() {
            Object first = Wire.request(HttpMethod.POST, "/hooks/a");
            Object second = Wire.request(HttpMethod.POST, "/hooks/a");
            channel.writeInbound(first, LastHttpContent.EMPTY_LAST_CONTENT, second, LastHttpContent.EMPTY_LAST_CONTENT);

            assertThat((Object) channel.readInbound()).isSameAs(first);
            assertThat((Object) channel.readInbound()).isSameAs(LastHttpContent.EMPTY_LAST_CONTENT);
            assertThat((Object) channel.readInbound()).as("held while the first is out").isNull();
            assertThat(gate.idle()).isFalse();
            assertThat(channel.config().isAutoRead()).as("nothing more is read meanwhile").isFalse();

            channel.writeOutbound(new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.CONTINUE));
            assertThat((Object) channel.readInbound()).as("a 100 Continue is no answer").isNull();

            channel.writeOutbound(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.ACCEPTED,
                    Unpooled.EMPTY_BUFFER));
            assertThat((Object) channel.readInbound()).isSameAs(second);
            assertThat((Object) channel.readInbound()).isSameAs(LastHttpContent.EMPTY_LAST_CONTENT);
            assertThat(channel.config().isAutoRead()).isTrue();

            channel.writeOutbound(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.ACCEPTED,
                    Unpooled.EMPTY_BUFFER));
            assertThat(gate.idle()).isTrue();
            channel.releaseOutbound();
        }

        @Test
        void anAnswerBeforeTheBodyEndsLetsTheNextRequestInOnceTheBodyHasPassed() {
            Object first = Wire.request(HttpMethod.POST, "/hooks/a");
            channel.writeInbound(first);
            assertThat((Object) channel.readInbound()).isSameAs(first);
            channel.writeOutbound(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.TOO_MANY_REQUESTS,
                    Unpooled.EMPTY_BUFFER));
            assertThat(gate.idle()).as("its body is still coming").isFalse();

            Object second = Wire.request(HttpMethod.POST, "/hooks/a");
            channel.writeInbound(LastHttpContent.EMPTY_LAST_CONTENT, second);
            assertThat((Object) channel.readInbound()).isSameAs(LastHttpContent.EMPTY_LAST_CONTENT);
            assertThat((Object) channel.readInbound()).as("the first was answered already: no wait").isSameAs(second);
            channel.releaseOutbound();
        }
    }

    @Nested
    class PerAddress {

        private final Counter refused = new SimpleMeterRegistry().counter("refused");
        private final ConnectionsPerAddress cap = new ConnectionsPerAddress(1, refused);
        private final InetAddress peer = Wire.ip("192.0.2.20");

        @Test
        void aConnectionPastTheCapIsAnswered503AndClosedAndNeverCounted() {
            EmbeddedChannel first = Wire.channel(peer, cap.handler());
            assertThat(cap.open(peer)).isEqualTo(1);

            EmbeddedChannel second = Wire.channel(peer, cap.handler());
            FullHttpResponse answer = second.readOutbound();
            assertThat(answer.status()).isEqualTo(HttpResponseStatus.SERVICE_UNAVAILABLE);
            assertThat(answer.headers().get(HttpHeaderNames.CONNECTION)).isEqualTo("close");
            assertThat(answer.headers().get(HttpHeaderNames.RETRY_AFTER)).isEqualTo("1");
            assertThat(body(answer)).isEqualTo("{\"error\":\"overload\"}");
            assertThat(second.isOpen()).isFalse();
            assertThat(refused.count()).isEqualTo(1.0);
            assertThat(cap.open(peer)).isEqualTo(1);

            EmbeddedChannel other = Wire.channel(Wire.ip("192.0.2.21"), cap.handler());
            assertThat((Object) other.readOutbound()).as("the cap is per address").isNull();

            first.close();
            assertThat(cap.open(peer)).isZero();
            EmbeddedChannel again = Wire.channel(peer, cap.handler());
            assertThat((Object) again.readOutbound()).isNull();
            assertThat(cap.open(peer)).isEqualTo(1);
        }
    }
}
