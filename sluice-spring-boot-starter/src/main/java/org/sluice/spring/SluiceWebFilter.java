package org.sluice.spring;

import java.net.InetSocketAddress;
import java.util.List;
import org.sluice.core.Probe;
import org.sluice.servlet.RateLimitFields;
import org.springframework.core.Ordered;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The WebFlux stack's filter, answering as the servlet filter does: a request its route
 * admits goes on with {@code RateLimit-Policy} and {@code RateLimit} set; a refused one is
 * answered {@code 429} with {@code Retry-After} and the same fields and an empty body, and
 * the handler is not called. A request no route matches goes on uncounted. The limiter's
 * call runs on the event loop in the in-memory and shared-memory scopes (it never
 * blocks), and on Reactor's bounded elastic scheduler in the {@code redis} scope (it waits
 * for a round trip, at most {@code sluice.limiter.redis.timeout-ms}).
 * Keys are the servlet filter's, with the same prefixes: {@code addr:}, {@code header:},
 * {@code user:}.
 */
final class SluiceWebFilter implements WebFilter, Ordered {

    private static final String FORWARDED_FOR = "X-Forwarded-For";

    private final SluiceRoutes routes;
    private final int order;

    SluiceWebFilter(SluiceRoutes routes, int order) {
        this.routes = routes;
        this.order = order;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        SluiceRoutes.Route route = routes.match(exchange.getRequest().getPath().pathWithinApplication());
        if (route == null) {
            return chain.filter(exchange);
        }
        String address = "addr:" + clientAddress(exchange.getRequest());
        return switch (route.key()) {
            case ADDRESS -> charge(route, address, exchange, chain);
            case HEADER -> {
                String value = exchange.getRequest().getHeaders().getFirst(route.header());
                yield charge(route, value == null || value.isEmpty() ? address : "header:" + value, exchange, chain);
            }
            case PRINCIPAL -> exchange.getPrincipal()
                    .map(user -> "user:" + user.getName())
                    .defaultIfEmpty(address)
                    .flatMap(key -> charge(route, key, exchange, chain));
        };
    }

    private String clientAddress(ServerHttpRequest request) {
        InetSocketAddress remote = request.getRemoteAddress();
        String peer = remote == null ? "unknown"
                : remote.getAddress() != null ? remote.getAddress().getHostAddress() : remote.getHostString();
        List<String> forwarded = request.getHeaders().getValuesAsList(FORWARDED_FOR);
        return routes.clientAddress().of(peer, forwarded);
    }

    private static Mono<Void> charge(SluiceRoutes.Route route, String key, ServerWebExchange exchange, WebFilterChain chain) {
        Probe probe = new Probe();
        if (route.blocking()) { // a Redis round trip: never on the event loop
            return Mono.fromCallable(() -> route.limit().tryAcquire(key, 1, probe))
                    .subscribeOn(Schedulers.boundedElastic())
                    .flatMap(admitted -> answer(route, probe, admitted, exchange, chain));
        }
        return answer(route, probe, route.limit().tryAcquire(key, 1, probe), exchange, chain);
    }

    private static Mono<Void> answer(SluiceRoutes.Route route, Probe probe, boolean admitted, ServerWebExchange exchange,
            WebFilterChain chain) {
        ServerHttpResponse response = exchange.getResponse();
        HttpHeaders headers = response.getHeaders();
        headers.set("RateLimit-Policy", route.fields().policy());
        headers.set("RateLimit", route.fields().current(probe));
        if (admitted) {
            return chain.filter(exchange);
        }
        response.setStatusCode(HttpStatus.TOO_MANY_REQUESTS);
        headers.set(HttpHeaders.RETRY_AFTER, Long.toString(RateLimitFields.retryAfterSeconds(probe)));
        headers.setContentLength(0);
        return response.setComplete();
    }

    @Override
    public int getOrder() {
        return order;
    }
}
