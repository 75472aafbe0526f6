package org.sluice.edge.netio;

import java.util.Locale;
import java.util.Optional;
import org.sluice.edge.config.HttpTransport;
import org.sluice.edge.config.SluiceConfig;

/**
 * The transport the tests run their servers and HTTP clients on: the system property
 * {@value #PROPERTY} ({@code auto}, {@code io_uring}, {@code epoll} or {@code nio}) when set,
 * else each test config's own {@code http.transport} (by default {@code auto}). The build runs
 * the HTTP-facing tests a second time on epoll (sluice-edge's pom) and CI runs the whole suite on
 * epoll too (README), so everything that holds on one transport is shown to hold on the other.
 * A named transport that cannot run here fails the server's boot, with the reason.
 */
public final class TestTransport {

    public static final String PROPERTY = "sluice.test.transport";

    private TestTransport() {
    }

    /** The setting the property names, or empty when it is not set. */
    public static Optional<HttpTransport> setting() {
        String value = System.getProperty(PROPERTY, "").strip();
        if (value.isEmpty()) {
            return Optional.empty();
        }
        for (HttpTransport t : HttpTransport.values()) {
            if (t.configName().equals(value.toLowerCase(Locale.ROOT))) {
                return Optional.of(t);
            }
        }
        throw new IllegalArgumentException(PROPERTY + " must be one of auto, io_uring, epoll, nio, got " + value);
    }

    /** {@code config} with its {@code http.transport} replaced by the property's, when set. */
    public static SluiceConfig apply(SluiceConfig config) {
        Optional<HttpTransport> setting = setting();
        if (setting.isEmpty()) {
            return config;
        }
        return new SluiceConfig(config.node(), config.admin(), config.http().withTransport(setting.get()),
                config.rateLimits(), config.intake(), config.dedupe(), config.sources(), config.fleet(),
                config.destinations(), config.retention(), config.store(), config.logging(), config.telemetry(), config.events());
    }

    /** The transport for a client or loops a test builds itself: the property's, else {@code auto}'s. */
    public static IoTransport io() {
        return setting().orElse(HttpTransport.AUTO).choose().transport();
    }
}
