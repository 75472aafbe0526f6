package org.sluice.servlet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.Principal;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.sluice.core.KeyedLimiter;
import org.sluice.core.Limit;

/** {@link RateLimitFilter} in a real embedded Jetty 12 on a loopback port, over real HTTP, on a manual clock. */
class RateLimitFilterTest {

    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final AtomicInteger served = new AtomicInteger();
    private final HttpClient client = HttpClient.newHttpClient();
    private Server server;
    private int port;

    @AfterEach
    void stop() throws Exception {
        if (server != null) {
            server.stop();
        }
    }

    private KeyedLimiter<String> limiter(Limit... bandwidths) {
        KeyedLimiter.Builder<String> builder = KeyedLimiter.<String>builder().clock(now::get);
        for (Limit limit : bandwidths) {
            builder.bandwidth(limit);
        }
        return builder.build();
    }

    private void start(RateLimitFilter filter) throws Exception {
        start(filter, null);
    }

    private void start(RateLimitFilter filter, Filter before) throws Exception {
        server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler();
        context.addServlet(new ServletHolder(new HttpServlet() {
            @Override
            protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
                served.incrementAndGet();
                resp.getWriter().write("ok");
            }
        }), "/*");
        if (before != null) {
            context.addFilter(new FilterHolder(before), "/*", EnumSet.of(DispatcherType.REQUEST));
        }
        context.addFilter(new FilterHolder(filter), "/*", EnumSet.of(DispatcherType.REQUEST));
        server.setHandler(context);
        server.start();
        port = connector.getLocalPort();
    }

    private HttpResponse<String> get(String... headers) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/hook"));
        if (headers.length > 0) {
            request.headers(headers);
        }
        return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private int admitted(int requests, String... headers) throws Exception {
        int ok = 0;
        for (int i = 0; i < requests; i++) {
            if (get(headers).statusCode() == 200) {
                ok++;
            }
        }
        return ok;
    }

    @Test
    void admitsExactlyTheBurstThenRefusesWith429AndHeadersUntilTheClockMoves() throws Exception {
        start(RateLimitFilter.builder(limiter(Limit.of(2, 5))).policyName("api").build());

        HttpResponse<String> first = get();
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.body()).isEqualTo("ok");
        assertThat(first.headers().firstValue("RateLimit-Policy")).hasValue("\"api\";q=5;w=3");
        assertThat(first.headers().firstValue("RateLimit")).hasValue("\"api\";r=4;t=1");
        assertThat(admitted(10)).isEqualTo(4);
        assertThat(served).hasValue(5);

        HttpResponse<String> refused = get();
        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(refused.headers().firstValue("Retry-After")).hasValue("1");
        assertThat(refused.headers().firstValue("RateLimit")).hasValue("\"api\";r=0;t=3");
        assertThat(refused.headers().firstValue("RateLimit-Policy")).hasValue("\"api\";q=5;w=3");
        assertThat(served).hasValue(5);

        now.addAndGet(1_000_000_000L); // two permits refill at 2 per second
        assertThat(admitted(5)).isEqualTo(2);
        assertThat(served).hasValue(7);
    }

    @Test
    void everyBandwidthIsInThePolicyAndTheLongestWaitIsTheRetryAfter() throws Exception {
        start(RateLimitFilter.builder(limiter(Limit.of(10, 3), Limit.of(0.1, 4))).build());

        assertThat(admitted(10)).isEqualTo(3);
        now.addAndGet(1_000_000_000L);
        assertThat(admitted(10)).isEqualTo(1); // the slow bandwidth's burst of 4 is spent
        HttpResponse<String> refused = get();
        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(refused.headers().firstValue("RateLimit-Policy")).hasValue("\"default\";q=3;w=1, \"default-2\";q=4;w=40");
        assertThat(refused.headers().firstValue("Retry-After")).hasValue("9");
    }

    @Test
    void forwardedForFromATrustedProxyNamesTheClient() throws Exception {
        start(RateLimitFilter.builder(limiter(Limit.of(1, 2)))
                .key(RequestKey.clientAddress(List.of("127.0.0.0/8"))).build());

        assertThat(admitted(5, "X-Forwarded-For", "203.0.113.7")).isEqualTo(2);
        assertThat(admitted(5, "X-Forwarded-For", "203.0.113.8, 127.0.0.5")).isEqualTo(2);
        // a client cannot choose its key by prepending entries: the rightmost untrusted one counts
        assertThat(admitted(5, "X-Forwarded-For", "198.51.100.1, 203.0.113.7")).isZero();
        assertThat(admitted(5)).isEqualTo(2); // no header: the proxy itself
    }

    @Test
    void hostileForwardedForEntriesNeverChooseTheKeyNorResolveAName() throws Exception {
        start(RateLimitFilter.builder(limiter(Limit.of(1, 1)))
                .key(RequestKey.clientAddress(List.of("127.0.0.0/8"))).build());

        // not an address literal right of every client entry: the walk stops at the proxy itself
        assertThat(admitted(2, "X-Forwarded-For", "203.0.113.1, evil.example")).isEqualTo(1);
        assertThat(admitted(2, "X-Forwarded-For", "203.0.113.2, , 10")).isZero();
        assertThat(admitted(2, "X-Forwarded-For", "x".repeat(4000))).isZero();
        assertThat(admitted(2)).isZero(); // all of them were the proxy's own bucket
        // garbage left of a real entry is the client's own and changes nothing
        assertThat(admitted(2, "X-Forwarded-For", "unknown, [2001:db8::1]")).isEqualTo(1);
        assertThat(admitted(2, "X-Forwarded-For", "2001:db8:0:0:0:0:0:1")).isZero();
    }

    @Test
    void forwardedForFromAnUntrustedPeerIsIgnored() throws Exception {
        start(RateLimitFilter.builder(limiter(Limit.of(1, 2)))
                .key(RequestKey.clientAddress(List.of("10.0.0.0/8", "::1/128"))).build());

        assertThat(admitted(3, "X-Forwarded-For", "203.0.113.7")).isEqualTo(2);
        assertThat(admitted(3, "X-Forwarded-For", "203.0.113.8")).isZero();
        assertThat(admitted(3)).isZero();
    }

    @Test
    void aHeaderKeysTheRequestAndItsAbsenceFallsBackToTheAddress() throws Exception {
        start(RateLimitFilter.builder(limiter(Limit.of(1, 2)))
                .key(RequestKey.header("X-Api-Key", RequestKey.clientAddress())).build());

        assertThat(admitted(5, "X-Api-Key", "alpha")).isEqualTo(2);
        assertThat(admitted(5, "X-Api-Key", "beta")).isEqualTo(2);
        assertThat(admitted(5)).isEqualTo(2);
        assertThat(admitted(5, "X-Api-Key", "addr:127.0.0.1")).isEqualTo(2); // a value never takes an address's bucket
    }

    @Test
    void aPrincipalKeysTheRequest() throws Exception {
        RequestKey byUser = RequestKey.principal(RequestKey.clientAddress());
        // stands in for the container's authentication: X-Test-User becomes the principal
        Filter login = (request, response, chain) -> {
            HttpServletRequest http = (HttpServletRequest) request;
            String user = http.getHeader("X-Test-User");
            chain.doFilter(user == null ? request : new HttpServletRequestWrapper(http) {
                @Override
                public Principal getUserPrincipal() {
                    return () -> user;
                }
            }, response);
        };
        start(RateLimitFilter.builder(limiter(Limit.of(1, 1))).key(byUser).build(), login);

        assertThat(admitted(3, "X-Test-User", "ann")).isEqualTo(1);
        assertThat(admitted(3, "X-Test-User", "bob")).isEqualTo(1);
        assertThat(admitted(3)).isEqualTo(1); // anonymous: by address
    }

    @Test
    void badConfigurationIsRefusedWithTheValue() {
        assertThatThrownBy(() -> RequestKey.clientAddress(List.of("10.0.0.0/33")))
                .hasMessageContaining("10.0.0.0/33");
        assertThatThrownBy(() -> RequestKey.clientAddress(List.of("proxy.internal")))
                .hasMessageContaining("proxy.internal");
        assertThatThrownBy(() -> RateLimitFilter.builder(limiter(Limit.of(1, 1))).policyName("a b"))
                .hasMessageContaining("a b");
    }
}
