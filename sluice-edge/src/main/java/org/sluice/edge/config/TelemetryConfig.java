package org.sluice.edge.config;

import java.net.URI;
import java.util.Objects;
import java.util.Optional;

/**
 * {@code telemetry}: the node's traces (docs/operations.md, "Traces").
 *
 * @param otlpEndpoint  {@code telemetry.otlp.endpoint}: where spans are exported over OTLP/HTTP
 *                      (protobuf); empty, the default, turns tracing off and nothing of it starts
 * @param samplingRatio {@code telemetry.sampling_ratio}: the share of new traces recorded, 0 to 1
 *                      (a hook that arrives with a {@code traceparent} follows its sampled flag)
 */
public record TelemetryConfig(Optional<URI> otlpEndpoint, double samplingRatio) {

    public static final double DEFAULT_SAMPLING_RATIO = 1.0;
    /** The path an OTLP/HTTP collector takes traces on, added to an endpoint given without one. */
    public static final String TRACES_PATH = "/v1/traces";

    public TelemetryConfig {
        Objects.requireNonNull(otlpEndpoint, "otlpEndpoint");
        if (!(samplingRatio >= 0 && samplingRatio <= 1)) {
            throw new IllegalArgumentException("telemetry.sampling_ratio must be between 0 and 1, got " + samplingRatio);
        }
    }

    public static TelemetryConfig defaults() {
        return new TelemetryConfig(Optional.empty(), DEFAULT_SAMPLING_RATIO);
    }

    /** True when spans are recorded and exported: {@code telemetry.otlp.endpoint} is set. */
    public boolean tracing() {
        return otlpEndpoint.isPresent();
    }

    /**
     * The URL spans are posted to: the endpoint as given when it has a path, else the
     * endpoint with {@value #TRACES_PATH} (as OTLP's base endpoint is read).
     */
    public Optional<String> tracesUrl() {
        return otlpEndpoint.map(u -> {
            String s = u.toString();
            String path = u.getRawPath();
            if (path == null || path.isEmpty() || path.equals("/")) {
                return (s.endsWith("/") ? s.substring(0, s.length() - 1) : s) + TRACES_PATH;
            }
            return s;
        });
    }
}
