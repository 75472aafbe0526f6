package org.sluice.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.sluice.testkit.ManualClock;

class HealthTest {

    private final ManualClock clock = new ManualClock(42L);
    private final ListAppender<ILoggingEvent> logged = new ListAppender<>();
    private final Logger logger = (Logger) LoggerFactory.getLogger("org.sluice.fleet");

    @BeforeEach
    void attach() {
        logged.start();
        logger.addAppender(logged);
    }

    @AfterEach
    void detach() {
        logger.detachAppender(logged);
    }

    private long warnings() {
        return logged.list.stream().filter(e -> e.getLevel() == Level.WARN).count();
    }

    @Test
    void warnsAtTheFirstFallbackThenAtMostOnceAMinute() {
        Health health = new Health(clock);
        for (int i = 0; i < 100; i++) {
            health.fallback(true, false, FleetAnswer.Reason.TIMEOUT, "closed");
        }
        assertThat(warnings()).isEqualTo(1);
        clock.advance(Duration.ofSeconds(59));
        health.fallback(true, true, FleetAnswer.Reason.BREAKER_OPEN, "open");
        assertThat(warnings()).isEqualTo(1);
        clock.advance(Duration.ofSeconds(1));
        health.fallback(false, true, FleetAnswer.Reason.ERROR, "open");
        assertThat(warnings()).isEqualTo(2);
        assertThat(health.fallbacks(FleetKind.RATE_LIMIT)).isEqualTo(101);
        assertThat(health.fallbacks(FleetKind.DEDUPE)).isEqualTo(2);
        assertThat(health.fallbacks(FleetAnswer.Reason.TIMEOUT)).isEqualTo(100);
    }

    @Test
    void lastCallFailedIsPerKind() {
        Health health = new Health(clock);
        health.outcome(true, false, true);
        assertThat(health.lastCallFailed(FleetKind.RATE_LIMIT)).isTrue();
        assertThat(health.lastCallFailed(FleetKind.DEDUPE)).isFalse();
        health.outcome(true, true, false);
        assertThat(health.lastCallFailed(FleetKind.RATE_LIMIT)).isFalse();
    }
}
