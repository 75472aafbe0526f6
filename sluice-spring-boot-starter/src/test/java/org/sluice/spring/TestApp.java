package org.sluice.spring;

import io.micrometer.core.instrument.MeterRegistry;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import java.security.Principal;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.sluice.core.Clock;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;
import org.springframework.web.server.WebFilter;
import reactor.core.publisher.Mono;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * The application the starter's tests boot: one controller (annotated, so the same class
 * serves on the servlet stack and on WebFlux) that counts what reaches it, a manual clock
 * the limiters read, a plain meter registry, and a stand-in for authentication: a filter on
 * each stack, ahead of Sluice's, that makes header {@code X-Test-User} the request's principal.
 */
@SpringBootApplication
public class TestApp {

    /** The manual clock's reading, in nanoseconds; tests move it forward, never back. */
    static final AtomicLong NOW = new AtomicLong(1_000_000_000L);
    /** Requests the controller served, by first path segment. */
    static final Map<String, AtomicInteger> SERVED = new ConcurrentHashMap<>();

    static int served(String area) {
        return SERVED.computeIfAbsent(area, a -> new AtomicInteger()).get();
    }

    @Bean
    Clock sluiceTestClock() {
        return NOW::get;
    }

    @Bean
    MeterRegistry meterRegistry() {
        return new SimpleMeterRegistry();
    }

    /** The servlet stack's stand-in for authentication (ignored by a reactive application). */
    @Bean
    Filter testAuthentication() {
        return new TestAuthentication();
    }

    /** The WebFlux stack's stand-in for authentication (ignored by a servlet application). */
    @Bean
    WebFilter testReactiveAuthentication() {
        return new TestReactiveAuthentication();
    }

    static final class TestAuthentication implements Filter, Ordered {

        @Override
        public void doFilter(jakarta.servlet.ServletRequest request, jakarta.servlet.ServletResponse response,
                             jakarta.servlet.FilterChain chain) throws java.io.IOException, jakarta.servlet.ServletException {
            String user = ((HttpServletRequest) request).getHeader("X-Test-User");
            if (user == null) {
                chain.doFilter(request, response);
                return;
            }
            chain.doFilter(new HttpServletRequestWrapper((HttpServletRequest) request) {
                @Override
                public Principal getUserPrincipal() {
                    return () -> user;
                }
            }, response);
        }

        @Override
        public int getOrder() {
            return -10;
        }
    }

    static final class TestReactiveAuthentication implements WebFilter, Ordered {

        @Override
        public Mono<Void> filter(org.springframework.web.server.ServerWebExchange exchange,
                                 org.springframework.web.server.WebFilterChain chain) {
            String user = exchange.getRequest().getHeaders().getFirst("X-Test-User");
            if (user == null) {
                return chain.filter(exchange);
            }
            Principal principal = () -> user;
            return chain.filter(exchange.mutate().principal(Mono.just(principal)).build());
        }

        @Override
        public int getOrder() {
            return -10;
        }
    }

    @RestController
    static class Hello {

        @GetMapping("/{area}/hello")
        String hello(@PathVariable("area") String area) {
            SERVED.computeIfAbsent(area, a -> new AtomicInteger()).incrementAndGet();
            return "hello";
        }
    }
}
