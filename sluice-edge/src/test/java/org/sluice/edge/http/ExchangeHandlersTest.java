package org.sluice.edge.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.sluice.edge.http.Wire.body;
import static org.sluice.edge.http.Wire.exchange;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.sluice.edge.verify.VerifyOutcome;

/**
 * The pre-body handlers one at a time, each in a real Netty pipeline of its own: what each
 * answers (status, body, counted outcome), and that whatever it does not answer goes on
 * unchanged, body chunks included.
 */
class ExchangeHandlersTest {

    private final IngestMetrics metrics = Wire.metrics();

    private static final SourceRoute SOURCE =
            new SourceRoute("a", null, (headers, body, now) -> VerifyOutcome.OK, (headers, body) -> null);

    @Nested
    class Route {

        private final AtomicInteger readinessAsked = new AtomicInteger();
        private String notReady;
        private final EmbeddedChannel channel = Wire.channel(new RouteHandler(
                new Router("/hooks", false, Map.of("a", SOURCE)), () -> {
                    readinessAsked.incrementAndGet();
                    return notReady;
                }, metrics));

        @Test
        void anIngestRequestGoesOnWithItsSourceAndTenant() {
            IngestExchange exchange = exchange(HttpMethod.POST, "/hooks/a", "Content-Length", "2");
            channel.writeInbound(exchange);

            assertThat((Object) channel.readInbound()).isSameAs(exchange);
            assertThat(exchange.source).isSameAs(SOURCE);
            assertThat(exchange.tenant).isEqualTo("default");
            assertThat((Object) channel.readOutbound()).isNull();
        }

        @Test
        void probesAndUnknownPathsAreAnsweredHere() {
            channel.writeInbound(exchange(HttpMethod.GET, "/healthz"));
            FullHttpResponse healthy = channel.readOutbound();
            assertThat(healthy.status()).isEqualTo(HttpResponseStatus.OK);
            assertThat(body(healthy)).isEqualTo("{\"status\":\"ok\"}");

            notReady = "store_closed";
            channel.writeInbound(exchange(HttpMethod.GET, "/readyz"));
            FullHttpResponse ready = channel.readOutbound();
            assertThat(ready.status()).isEqualTo(HttpResponseStatus.SERVICE_UNAVAILABLE);
            assertThat(ready.headers().get(HttpHeaderNames.RETRY_AFTER)).isEqualTo("1");
            assertThat(body(ready)).isEqualTo("{\"status\":\"unavailable\",\"reason\":\"store_closed\"}");
            assertThat(readinessAsked).hasValue(1);

            channel.writeInbound(exchange(HttpMethod.POST, "/hooks/nope"));
            FullHttpResponse unknown = channel.readOutbound();
            assertThat(unknown.status()).isEqualTo(HttpResponseStatus.NOT_FOUND);
            assertThat(body(unknown)).isEqualTo("{\"error\":\"unknown_source\"}");

            channel.writeInbound(exchange(HttpMethod.GET, "/elsewhere"));
            FullHttpResponse notFound = channel.readOutbound();
            assertThat(notFound.status()).isEqualTo(HttpResponseStatus.NOT_FOUND);
            body(notFound);

            assertThat((Object) channel.readInbound()).isNull();
            assertThat(metrics.count(IngestOutcome.PROBE)).isEqualTo(2.0);
            assertThat(metrics.count(IngestOutcome.NOT_FOUND)).isEqualTo(2.0);
        }

        @Test
        void aBodyChunkPassesThroughUntouched() {
            HttpContent chunk = new DefaultHttpContent(Unpooled.wrappedBuffer(new byte[] {1, 2}));
            channel.writeInbound(chunk);
            assertThat((Object) channel.readInbound()).isSameAs(chunk);
            chunk.release();
        }
    }

    @Nested
    class ClientAddress {

        private final EmbeddedChannel direct = Wire.channel(Wire.ip("192.0.2.7"),
                new ClientAddressHandler(a -> false, metrics));
        private final EmbeddedChannel behindProxy = Wire.channel(Wire.ip("10.0.0.1"),
                new ClientAddressHandler(a -> a.getHostAddress().startsWith("10."), metrics));

        @Test
        void thePeerIsTheClientUnlessItIsATrustedProxy() {
            IngestExchange exchange = exchange(HttpMethod.POST, "/hooks/a", "X-Forwarded-For", "198.51.100.9");
            direct.writeInbound(exchange);
            assertThat((Object) direct.readInbound()).isSameAs(exchange);
            assertThat(exchange.client).isEqualTo(Wire.ip("192.0.2.7"));

            IngestExchange proxied = exchange(HttpMethod.POST, "/hooks/a", "X-Forwarded-For", "198.51.100.9, 10.0.0.2");
            behindProxy.writeInbound(proxied);
            assertThat((Object) behindProxy.readInbound()).isSameAs(proxied);
            assertThat(proxied.client).isEqualTo(Wire.ip("198.51.100.9"));
        }

        @Test
        void anUnreadableForwardedEntryBehindATrustedProxyIsA400() {
            behindProxy.writeInbound(exchange(HttpMethod.POST, "/hooks/a", "X-Forwarded-For", "not-an-address"));
            FullHttpResponse response = behindProxy.readOutbound();
            assertThat(response.status()).isEqualTo(HttpResponseStatus.BAD_REQUEST);
            assertThat(body(response)).isEqualTo("{\"error\":\"invalid_forwarded_for\"}");
            assertThat((Object) behindProxy.readInbound()).isNull();
            assertThat(metrics.count(IngestOutcome.BAD_REQUEST)).isEqualTo(1.0);
        }

        @Test
        void anIpv4MappedPeerIsItsIpv4Address() {
            EmbeddedChannel mapped = Wire.channel(Wire.ip("::ffff:192.0.2.8"), new ClientAddressHandler(a -> false, metrics));
            IngestExchange exchange = exchange(HttpMethod.POST, "/hooks/a");
            mapped.writeInbound(exchange);
            assertThat((Object) mapped.readInbound()).isSameAs(exchange);
            assertThat(exchange.client).isEqualTo(Wire.ip("192.0.2.8"));
        }
    }

    @Nested
    class BodySize {

        private final AtomicInteger limitsAsked = new AtomicInteger();
        private final EmbeddedChannel channel = Wire.channel(new BodySizeHandler(tenant -> {
            limitsAsked.incrementAndGet();
            return 100;
        }, metrics));

        @Test
        void aDeclaredLengthOverTheTenantsLimitIsA413BeforeTheBody() {
            IngestExchange exchange = exchange(HttpMethod.POST, "/hooks/a", "Content-Length", "101");
            exchange.tenant = "acme";
            channel.writeInbound(exchange);
            FullHttpResponse response = channel.readOutbound();
            assertThat(response.status()).isEqualTo(HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE);
            assertThat(response.headers().get(HttpHeaderNames.CONNECTION)).isEqualTo("close"); // the body is unread
            assertThat(body(response)).isEqualTo("{\"error\":\"payload_too_large\",\"limit\":100}");
            assertThat(metrics.count(IngestOutcome.PAYLOAD_TOO_LARGE)).isEqualTo(1.0);
        }

        @Test
        void aLengthWithinTheLimitGoesOnWithTheLimitSet() {
            IngestExchange exchange = exchange(HttpMethod.POST, "/hooks/a", "Content-Length", "100");
            channel.writeInbound(exchange);
            assertThat((Object) channel.readInbound()).isSameAs(exchange);
            assertThat(exchange.bodyLimit).isEqualTo(100);
        }

        @Test
        void aRequestWithoutABodyLooksUpNoLimit() {
            IngestExchange exchange = exchange(HttpMethod.POST, "/hooks/a", "Content-Length", "0");
            channel.writeInbound(exchange);
            assertThat((Object) channel.readInbound()).isSameAs(exchange);
            assertThat(limitsAsked).hasValue(0);
        }
    }

    @Nested
    class BodyRoom {

        @Test
        void aBodyWhoseFirstBufferWouldNotFitIsA503BeforeItIsRead() {
            InflightBodies bodies = new InflightBodies(1024);
            EmbeddedChannel channel = Wire.channel(new BodyRoomHandler(bodies, metrics));
            IngestExchange exchange = exchange(HttpMethod.POST, "/hooks/a", "Content-Length", "2048");
            exchange.bodyLimit = 4096;
            channel.writeInbound(exchange);
            FullHttpResponse response = channel.readOutbound();
            assertThat(response.status()).isEqualTo(HttpResponseStatus.SERVICE_UNAVAILABLE);
            assertThat(body(response)).contains("overload");
            assertThat(metrics.count(IngestOutcome.OVERLOAD)).isEqualTo(1.0);
            assertThat(bodies.held()).isZero(); // a check: nothing is held here
        }

        @Test
        void aBodyThatFitsGoesOnAndABodilessRequestIsNotChecked() {
            InflightBodies bodies = new InflightBodies(1024);
            EmbeddedChannel channel = Wire.channel(new BodyRoomHandler(bodies, metrics));
            IngestExchange fits = exchange(HttpMethod.POST, "/hooks/a", "Content-Length", "1024");
            fits.bodyLimit = 4096;
            channel.writeInbound(fits);
            assertThat((Object) channel.readInbound()).isSameAs(fits);

            IngestExchange bodiless = exchange(HttpMethod.POST, "/hooks/a", "Content-Length", "0");
            EmbeddedChannel full = Wire.channel(new BodyRoomHandler(new InflightBodies(0), metrics));
            full.writeInbound(bodiless);
            assertThat((Object) full.readInbound()).isSameAs(bodiless);
        }
    }

    @Nested
    class Continue {

        private final EmbeddedChannel channel = Wire.channel(new ContinueHandler(metrics));

        @Test
        void aClientWaitingForContinueGetsItAndTheRequestGoesOnWithoutTheExpectation() {
            IngestExchange exchange = exchange(HttpMethod.POST, "/hooks/a", "Content-Length", "2", "Expect", "100-continue");
            channel.writeInbound(exchange);
            HttpResponse proceed = channel.readOutbound();
            assertThat(proceed.status()).isEqualTo(HttpResponseStatus.CONTINUE);
            assertThat((Object) channel.readInbound()).isSameAs(exchange);
            assertThat(exchange.request.headers().contains(HttpHeaderNames.EXPECT)).isFalse();
        }

        @Test
        void noContinueIsSentForARequestWithoutABody() {
            IngestExchange exchange = exchange(HttpMethod.POST, "/hooks/a", "Content-Length", "0", "Expect", "100-continue");
            channel.writeInbound(exchange);
            assertThat((Object) channel.readOutbound()).isNull();
            assertThat((Object) channel.readInbound()).isSameAs(exchange);
        }

        @Test
        void anyOtherExpectationIsA417() {
            channel.writeInbound(exchange(HttpMethod.POST, "/hooks/a", "Content-Length", "2", "Expect", "something-else"));
            FullHttpResponse response = channel.readOutbound();
            assertThat(response.status()).isEqualTo(HttpResponseStatus.EXPECTATION_FAILED);
            assertThat(body(response)).isEqualTo("{\"error\":\"expectation_failed\"}");
            assertThat((Object) channel.readInbound()).isNull();
            assertThat(metrics.count(IngestOutcome.BAD_REQUEST)).isEqualTo(1.0);
        }
    }
}
