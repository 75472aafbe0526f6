package org.sluice.spring;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.sluice.core.Clock;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * The application the starter's tests boot: one controller (annotated, so the same class
 * serves on the servlet stack and on WebFlux) that counts what reaches it, a manual clock
 * the limiters read, and a plain meter registry.
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

    @RestController
    static class Hello {

        @GetMapping("/{area}/hello")
        String hello(@PathVariable("area") String area) {
            SERVED.computeIfAbsent(area, a -> new AtomicInteger()).incrementAndGet();
            return "hello";
        }
    }
}
