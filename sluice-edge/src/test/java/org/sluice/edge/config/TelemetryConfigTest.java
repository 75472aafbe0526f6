package org.sluice.edge.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import org.junit.jupiter.api.Test;

/** {@code telemetry.*}: off by default, a collector's URL and a ratio from 0 to 1, anything else refused at boot. */
class TelemetryConfigTest {

    @Test
    void tracingIsOffByDefaultWithEveryTraceSampledOnceOn() {
        TelemetryConfig t = ConfigLoader.parse("node: {id: n}").telemetry();
        assertThat(t.tracing()).isFalse();
        assertThat(t.tracesUrl()).isEmpty();
        assertThat(t.samplingRatio()).isEqualTo(1.0);
    }

    @Test
    void aBaseEndpointGetsTheTracesPathAndAFullOneIsKept() {
        TelemetryConfig base = ConfigLoader.parse("""
                telemetry: {otlp: {endpoint: "http://collector:4318"}, sampling_ratio: 0.01}
                """).telemetry();
        assertThat(base.tracing()).isTrue();
        assertThat(base.tracesUrl()).contains("http://collector:4318/v1/traces");
        assertThat(base.samplingRatio()).isEqualTo(0.01);
        assertThat(ConfigLoader.parse("telemetry: {otlp: {endpoint: \"https://otel.example/\"}}").telemetry().tracesUrl())
                .contains("https://otel.example/v1/traces");
        assertThat(ConfigLoader.parse("telemetry: {otlp: {endpoint: \"https://otel.example/in/traces\"}}").telemetry()
                .tracesUrl()).contains("https://otel.example/in/traces");
        assertThat(ConfigLoader.parse("telemetry: {sampling_ratio: 0}").telemetry().samplingRatio()).isZero();
    }

    @Test
    void aBadEndpointOrRatioFailsTheBootNamingTheKey() {
        ConfigException e = catchThrowableOfType(ConfigException.class, () -> ConfigLoader.parse("""
                telemetry:
                  otlp: {endpoint: "collector:4318", port: 1}
                  sampling_ratio: 1.5
                """));
        assertThat(e.errors()).anyMatch(m -> m.startsWith("telemetry.otlp.endpoint must be an http or https URL"))
                .anyMatch(m -> m.startsWith("telemetry.sampling_ratio must be a number between 0 and 1, got 1.5"))
                .anyMatch(m -> m.contains("telemetry.otlp.port"));
    }
}
