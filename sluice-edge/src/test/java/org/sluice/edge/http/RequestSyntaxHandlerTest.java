package org.sluice.edge.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.sluice.edge.http.Wire.body;
import static org.sluice.edge.http.Wire.request;

import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import org.junit.jupiter.api.Test;
import org.sluice.testkit.ManualClock;

/**
 * {@link RequestSyntaxHandler} in a real Netty pipeline: a well-formed request becomes an
 * {@link IngestExchange}; a bad header name or value is a 400 that names the header, an
 * undecodable request a 400 or 431, always with the connection closing when nothing more of
 * it can be trusted.
 */
class RequestSyntaxHandlerTest {

    private final IngestMetrics metrics = Wire.metrics();
    private final EmbeddedChannel channel = Wire.channel(new RequestSyntaxHandler(new ManualClock(7), metrics));

    @Test
    void aWellFormedRequestBecomesAnExchangeStampedWithItsArrival() {
        HttpRequest request = request(HttpMethod.POST, "/hooks/a", "Content-Length", "2", "X-Sig!#$%&'*+-.^_`|~", "v\tw");
        channel.writeInbound(request);
        IngestExchange exchange = channel.readInbound();
        assertThat(exchange.request).isSameAs(request);
        assertThat(exchange.startNanos).isEqualTo(7);
        assertThat(exchange.declaredLength).isEqualTo(2);
        assertThat(exchange.bodyPending()).isTrue();
        assertThat((Object) channel.readOutbound()).isNull();
    }

    @Test
    void aHeaderNameThatIsNotATokenIsA400NamingIt() {
        channel.writeInbound(request(HttpMethod.POST, "/hooks/a", "X-Ok", "1", "Bad Name", "1"));
        FullHttpResponse response = channel.readOutbound();
        assertThat(response.status()).isEqualTo(HttpResponseStatus.BAD_REQUEST);
        assertThat(body(response)).isEqualTo("{\"error\":\"invalid_header\",\"header\":\"Bad Name\"}");
        assertThat((Object) channel.readInbound()).isNull();
        assertThat(metrics.count(IngestOutcome.BAD_REQUEST)).isEqualTo(1.0);
    }

    @Test
    void aControlByteInAValueIsA400NamingItsHeader() {
        channel.writeInbound(request(HttpMethod.POST, "/hooks/a", "X-Nul", "a\u0000b"));
        FullHttpResponse response = channel.readOutbound();
        assertThat(body(response)).isEqualTo("{\"error\":\"invalid_header\",\"header\":\"X-Nul\"}");

        EmbeddedChannel another = Wire.channel(new RequestSyntaxHandler(new ManualClock(7), metrics));
        another.writeInbound(request(HttpMethod.POST, "/hooks/a", "X-Del", "a\u007fb"));
        assertThat(body(another.readOutbound())).isEqualTo("{\"error\":\"invalid_header\",\"header\":\"X-Del\"}");
        assertThat(metrics.count(IngestOutcome.BAD_REQUEST)).isEqualTo(2.0);
    }

    /** Its framing cannot be trusted (issue 46, point 2): nothing after it is read as a request. */
    @Test
    void anInvalidHeaderEndsTheConnection() {
        channel.writeInbound(request(HttpMethod.POST, "/hooks/a", "Content-Length ", "33"));
        FullHttpResponse response = channel.readOutbound();
        assertThat(body(response)).isEqualTo("{\"error\":\"invalid_header\",\"header\":\"Content-Length \"}");
        assertThat(response.headers().get(HttpHeaderNames.CONNECTION)).isEqualTo("close");
        assertThat(channel.isOpen()).isFalse();
    }

    @Test
    void aHeaderBlockOverTheLimitIsA431AndCloses() {
        HttpRequest request = request(HttpMethod.POST, "/hooks/a");
        request.setDecoderResult(DecoderResult.failure(new TooLongHttpHeaderException("too long")));
        channel.writeInbound(request);
        FullHttpResponse response = channel.readOutbound();
        assertThat(response.status().code()).isEqualTo(431);
        assertThat(response.headers().get(HttpHeaderNames.CONNECTION)).isEqualTo("close");
        assertThat(body(response)).isEqualTo("{\"error\":\"headers_too_large\"}");
        assertThat(channel.isOpen()).isFalse();
    }

    @Test
    void aLengthPastLongIsA400() {
        channel.writeInbound(request(HttpMethod.POST, "/hooks/a", "Content-Length", "9223372036854775808"));
        FullHttpResponse response = channel.readOutbound();
        assertThat(response.status()).isEqualTo(HttpResponseStatus.BAD_REQUEST);
        assertThat(body(response)).isEqualTo("{\"error\":\"bad_request\"}");
        assertThat(channel.isOpen()).isFalse();
    }
}
