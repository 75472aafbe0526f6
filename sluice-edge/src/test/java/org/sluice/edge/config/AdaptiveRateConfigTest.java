package org.sluice.edge.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.sluice.edge.delivery.AdaptiveRate;
import org.sluice.edge.delivery.Destination;

/** {@code destinations.<name>.rate: {rate: adaptive, min, max}}: values read, the fixed rate unchanged, every refusal. */
class AdaptiveRateConfigTest {

    private static Destination app(String rate, Map<String, String> env) {
        return ConfigLoader.parse("destinations: {app: {url: \"http://h.test/\", rate: " + rate + "}}", env, "test")
                .destinations().get("app");
    }

    @Test
    void anAdaptiveRateReadsItsMinAndMaxInThousandths() {
        Destination d = app("{rate: adaptive, min: 1, max: 500}", Map.of());
        assertThat(d.adaptive()).contains(new AdaptiveRate(1_000, 500_000));
        assertThat(d.rate()).isEmpty();
        assertThat(d.toString()).contains("rate=adaptive 1..500/s");

        assertThat(app("{rate: adaptive, min: 0.5, max: 2.25}", Map.of()).adaptive())
                .contains(new AdaptiveRate(500, 2_250));
        assertThat(app("{rate: adaptive, min: 7, max: 7}", Map.of()).adaptive()).contains(new AdaptiveRate(7_000, 7_000));
        assertThat(app("{rate: \"${PACING}\", min: \"${LOW}\", max: 100}", Map.of("PACING", "adaptive", "LOW", "2"))
                .adaptive()).contains(new AdaptiveRate(2_000, 100_000));
    }

    @Test
    void aFixedRateReadsAsBefore() {
        Destination d = app("{rate: 200, burst: 400}", Map.of());
        assertThat(d.adaptive()).isEmpty();
        assertThat(d.rate()).hasValueSatisfying(l -> {
            assertThat(l.rate()).isEqualTo(200.0);
            assertThat(l.burst()).isEqualTo(400);
        });
        assertThat(app("{rate: 0.5, burst: 1}", Map.of()).rate()).hasValueSatisfying(l -> assertThat(l.rate()).isEqualTo(0.5));
        assertThat(ConfigLoader.parse("destinations: {app: {url: \"http://h.test/\"}}").destinations().get("app").adaptive())
                .isEmpty();
    }

    static Stream<Arguments> refusals() {
        return Stream.of(
                Arguments.of("{rate: adaptive, min: 50, max: 10}",
                        "destinations.app.rate.max must be at least destinations.app.rate.min (50), got 10"),
                Arguments.of("{rate: adaptive, min: 0, max: 10}",
                        "destinations.app.rate.min must be a number of attempts per second from 0.001 to 1000000, got 0"),
                Arguments.of("{rate: adaptive, min: -1, max: 10}",
                        "destinations.app.rate.min must be a number of attempts per second from 0.001 to 1000000, got -1"),
                Arguments.of("{rate: adaptive, min: 0.0001, max: 10}",
                        "destinations.app.rate.min must be a number of attempts per second from 0.001 to 1000000, got 1.0E-4"),
                Arguments.of("{rate: adaptive, min: 1, max: 0}",
                        "destinations.app.rate.max must be a number of attempts per second from 0.001 to 1000000, got 0"),
                Arguments.of("{rate: adaptive, min: 1, max: 2000000}",
                        "destinations.app.rate.max must be a number of attempts per second from 0.001 to 1000000, got 2000000"),
                Arguments.of("{rate: adaptive, min: slow, max: 10}",
                        "destinations.app.rate.min must be a number of attempts per second from 0.001 to 1000000, got \"slow\""),
                Arguments.of("{rate: adaptive, max: 10}",
                        "destinations.app.rate.min is required: the pace it starts at and never goes below, in attempts per second"),
                Arguments.of("{rate: adaptive, min: 1}",
                        "destinations.app.rate.max is required: the pace it never goes above, in attempts per second"),
                Arguments.of("{rate: adaptive, min: 1, max: 10, burst: 5}",
                        "unknown key \"destinations.app.rate.burst\" (known keys here: rate, min, max)"),
                Arguments.of("{rate: 5, burst: 5, min: 1}",
                        "unknown key \"destinations.app.rate.min\" (known keys here: rate, burst)"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusals")
    void badValuesFailTheBootNamingTheKeyAndTheValue(String rate, String message) {
        ConfigException e = catchThrowableOfType(ConfigException.class,
                () -> ConfigLoader.parse("destinations: {app: {url: \"http://h.test/\", rate: " + rate + "}}"));
        assertThat(e).as(rate).isNotNull();
        assertThat(e.errors()).as(rate).containsExactly(message);
    }
}
