package org.sluice.edge.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.sluice.edge.http.Wire.body;
import static org.sluice.edge.http.Wire.exchange;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.sluice.core.Limit;
import org.sluice.edge.admission.NodeLimits;
import org.sluice.edge.admission.RefusalScope;
import org.sluice.edge.config.RefusedBody;
import org.sluice.edge.verify.VerifyOutcome;
import org.sluice.testkit.ManualClock;

/**
 * The two handlers around the body, each in a real Netty pipeline of its own:
 * {@link PreReadAdmissionHandler} (the pre-read limits, and what becomes of a refused
 * request's body) and {@link BodyAggregator} (reading the body within its limit and the
 * node's memory, then charging its bytes).
 */
class BodyHandlersTest {

    private static final InetAddress CLIENT = Wire.ip("192.0.2.10");
    private static final SourceRoute SOURCE =
            new SourceRoute("a", null, (headers, body, now) -> VerifyOutcome.OK, (headers, body) -> null);

    private final ManualClock clock = new ManualClock(0);
    private final IngestMetrics metrics = Wire.metrics();

    private static IngestExchange hook(String... headers) {
        IngestExchange exchange = exchange(HttpMethod.POST, "/hooks/a", headers);
        exchange.source = SOURCE;
        exchange.tenant = "default";
        exchange.client = CLIENT;
        exchange.bodyLimit = 1024;
        return exchange;
    }

    private static DefaultLastHttpContent last(String text) {
        return new DefaultLastHttpContent(Unpooled.copiedBuffer(text, StandardCharsets.UTF_8));
    }

    @Nested
    class PreRead {

        /** One hook per address, none spent yet; the node's bucket one hook too. */
        private final NodeLimits limits = new NodeLimits(Optional.of(Limit.of(1, 1)), Optional.of(Limit.of(1, 1)),
                Map.of());

        private EmbeddedChannel channel(boolean shadow, RefusedBody refusedBody) {
            return Wire.channel(CLIENT, new PreReadAdmissionHandler(new PreReadCharges(limits, clock, shadow, metrics), refusedBody));
        }

        @Test
        void anAdmittedRequestGoesOnAndIsChargedOnce() {
            EmbeddedChannel channel = channel(false, RefusedBody.CLOSE_IF_INCOMPLETE);
            IngestExchange exchange = hook("Content-Length", "0");
            channel.writeInbound(exchange);
            assertThat((Object) channel.readInbound()).isSameAs(exchange);
            assertThat(limits.addressWait(CLIENT, clock.nanoTime())).isPositive(); // its one hook, spent
            assertThat(limits.chargeNode(clock.nanoTime())).isPositive();
        }

        @Test
        void aSmallBodyThatCameWithTheHeadIsDroppedAndTheConnectionKept() {
            limits.chargeAddress(CLIENT, clock.nanoTime());
            EmbeddedChannel channel = channel(false, RefusedBody.CLOSE_IF_INCOMPLETE);

            channel.writeInbound(hook("Content-Length", "2"), last("{}")); // one read: head and body
            FullHttpResponse response = channel.readOutbound();
            assertThat(response.status()).isEqualTo(HttpResponseStatus.TOO_MANY_REQUESTS);
            assertThat(response.headers().get(HttpHeaderNames.CONNECTION)).isNull();
            assertThat(body(response)).contains("\"scope\":\"ip\"");
            assertThat((Object) channel.readInbound()).isNull();
            assertThat(channel.isOpen()).isTrue();
            assertThat(metrics.count(RefusalScope.IP)).isEqualTo(1.0);
            assertThat(metrics.count(RefusalScope.NODE)).as("an address refused never reaches the node").isZero();
            assertThat(limits.chargeNode(clock.nanoTime())).isZero();
        }

        @Test
        void aBodyStillOnItsWayWhenTheReadEndsClosesTheConnection() {
            limits.chargeAddress(CLIENT, clock.nanoTime());
            EmbeddedChannel channel = channel(false, RefusedBody.CLOSE_IF_INCOMPLETE);

            channel.writeInbound(hook("Content-Length", "2")); // the read ends before the body
            FullHttpResponse response = channel.readOutbound();
            assertThat(response.status()).isEqualTo(HttpResponseStatus.TOO_MANY_REQUESTS);
            assertThat(response.headers().get(HttpHeaderNames.CONNECTION)).isEqualTo("close");
            body(response);
            assertThat(channel.isOpen()).isFalse();
        }

        @Test
        void underDiscardTheSmallBodyIsDroppedAsItArrivesAndTheConnectionKept() {
            limits.chargeAddress(CLIENT, clock.nanoTime());
            EmbeddedChannel channel = channel(false, RefusedBody.DISCARD);
            IngestExchange exchange = hook("Content-Length", "2");

            channel.writeInbound(exchange);
            FullHttpResponse response = channel.readOutbound();
            assertThat(response.headers().get(HttpHeaderNames.CONNECTION)).isNull();
            body(response);
            assertThat(exchange.dropBody).isTrue();
            assertThat(channel.isOpen()).isTrue();
        }

        @Test
        void inShadowModeARefusalIsCountedAndTheRequestGoesOn() {
            limits.chargeAddress(CLIENT, clock.nanoTime());
            EmbeddedChannel channel = channel(true, RefusedBody.CLOSE_IF_INCOMPLETE);
            IngestExchange exchange = hook("Content-Length", "0");

            channel.writeInbound(exchange);
            assertThat((Object) channel.readInbound()).isSameAs(exchange);
            assertThat((Object) channel.readOutbound()).isNull();
            assertThat(metrics.count(RefusalScope.IP)).isEqualTo(1.0);
        }
    }

    @Nested
    class Aggregator {

        private final InflightBodies bodies = new InflightBodies(1 << 20);

        private EmbeddedChannel channel(NodeLimits limits) {
            return Wire.channel(CLIENT, new BodyAggregator(new PreReadCharges(limits, clock, false, metrics), bodies));
        }

        private final NodeLimits unlimited = new NodeLimits(Optional.empty(), Optional.empty(), Map.of());

        @Test
        void aBodyInChunksBecomesOneHookHoldingExactlyItsBytes() {
            EmbeddedChannel channel = channel(unlimited);
            IngestExchange exchange = hook("Transfer-Encoding", "chunked");

            channel.writeInbound(exchange, new DefaultHttpContent(Unpooled.copiedBuffer("{\"a\":", StandardCharsets.UTF_8)),
                    last("1}"));
            ReceivedHook hook = channel.readInbound();
            assertThat(hook.exchange()).isSameAs(exchange);
            assertThat(new String(hook.body(), StandardCharsets.UTF_8)).isEqualTo("{\"a\":1}");
            assertThat(bodies.held()).isEqualTo(7); // given back by HookHandler once answered
            assertThat(exchange.bodyRead).isTrue();
        }

        @Test
        void anUndeclaredBodyPastItsLimitIsA413TheMomentItPasses() {
            EmbeddedChannel channel = channel(unlimited);
            IngestExchange exchange = hook("Transfer-Encoding", "chunked");
            exchange.bodyLimit = 4;

            channel.writeInbound(exchange, new DefaultHttpContent(Unpooled.copiedBuffer("{\"a\":", StandardCharsets.UTF_8)));
            FullHttpResponse response = channel.readOutbound();
            assertThat(response.status()).isEqualTo(HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE);
            assertThat(body(response)).isEqualTo("{\"error\":\"payload_too_large\",\"limit\":4}");
            assertThat((Object) channel.readInbound()).isNull();
            assertThat(bodies.held()).isZero();
            assertThat(channel.isOpen()).as("the rest of the body is unread: the connection closes").isFalse();
        }

        @Test
        void theReceivedBytesAreChargedToTheSourceOnceTheBodyIsWhole() {
            NodeLimits sourceBytes = new NodeLimits(Optional.empty(), Optional.empty(), Map.of("a", 2L));
            EmbeddedChannel channel = channel(sourceBytes);

            channel.writeInbound(hook("Content-Length", "2"), last("{}"));
            assertThat((Object) channel.readInbound()).isInstanceOf(ReceivedHook.class);
            assertThat(sourceBytes.sourceBytesWait("a", 2, clock.nanoTime())).as("two bytes spent").isPositive();

            channel.writeInbound(hook("Content-Length", "2"), last("{}"));
            FullHttpResponse refused = channel.readOutbound();
            assertThat(refused.status()).isEqualTo(HttpResponseStatus.TOO_MANY_REQUESTS);
            assertThat(body(refused)).contains("\"scope\":\"source\"");
            assertThat(metrics.count(RefusalScope.SOURCE)).isEqualTo(1.0);
            assertThat(bodies.held()).isEqualTo(2); // the first hook's bytes; the refused one's given back
        }
    }
}
