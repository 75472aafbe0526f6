package org.sluice.edge.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.sluice.edge.delivery.Destination;
import org.sluice.edge.delivery.Ordering;
import org.sluice.edge.delivery.targets.HttpTarget;

/** {@code destinations}, {@code deliver_to}, {@code retention} and {@code store}: values read and every refusal's message. */
class DestinationConfigTest {

    private static final String SOURCE = "sources:\n  gh: {tenant: acme, verify: {scheme: none}, deliver_to: [app]}\n";

    @Test
    void aFullDestinationReadsEveryValue() {
        SluiceConfig c = ConfigLoader.parse("""
                destinations:
                  app:
                    type: http
                    url: "https://hooks.example.test:9443/in?x=1"
                    timeout_ms: 2000
                    max_in_flight: 4
                    rate: {rate: 200, burst: 400}
                    signing: {scheme: standard_webhooks, secret: "whsec_c2VjcmV0"}
                    headers: {Authorization: "Bearer ${APP_TOKEN}"}
                    forward_headers: [Content-Type, X-GitHub-Event]
                    ordering: fifo
                    retry: {initial_ms: 500, max_ms: 60000, max_attempts: 7, max_age_seconds: 3600,
                            permanent_statuses: [410]}
                    breaker: {failures: 3, open_ms: 1000, max_open_ms: 8000}
                  audit: {url: "http://127.0.0.1:9001/"}
                sources:
                  gh: {tenant: acme, verify: {scheme: none}, deliver_to: [app, audit]}
                  plain: {verify: {scheme: none}}
                retention: {hooks_seconds: 60, dead_seconds: 120}
                store: {max_bytes: 1000000}
                """, Map.of("APP_TOKEN", "t0k3n"), "test");
        assertThat(c.destinations()).containsOnlyKeys("app", "audit");
        Destination app = c.destinations().get("app");
        assertThat(http(app).url().toString()).isEqualTo("https://hooks.example.test:9443/in?x=1");
        assertThat(app.timeoutMs()).isEqualTo(2000);
        assertThat(app.maxInFlight()).isEqualTo(4);
        assertThat(app.rate()).hasValueSatisfying(l -> assertThat(l.burst()).isEqualTo(400));
        assertThat(app.headers().signs()).isTrue();
        assertThat(app.ordering()).isEqualTo(Ordering.FIFO);
        assertThat(app.retry().initialMs()).isEqualTo(500);
        assertThat(app.retry().maxMs()).isEqualTo(60_000);
        assertThat(app.retry().maxAttempts()).isEqualTo(7);
        assertThat(app.retry().maxAgeMillis()).isEqualTo(3_600_000);
        assertThat(app.retry().classify(410)).isEqualTo(org.sluice.edge.delivery.RetryPolicy.Verdict.PERMANENT);
        assertThat(app.retry().classify(404)).isEqualTo(org.sluice.edge.delivery.RetryPolicy.Verdict.RETRY);
        assertThat(app.breaker().failures()).isEqualTo(3);
        assertThat(app.breaker().openMs()).isEqualTo(1000);
        assertThat(app.breaker().maxOpenMs()).isEqualTo(8000);
        assertThat(http(app).caFile()).isEmpty();
        assertThat(app.toString()).doesNotContain("c2VjcmV0").doesNotContain("t0k3n");

        Destination audit = c.destinations().get("audit");
        assertThat(audit.timeoutMs()).isEqualTo(Destination.DEFAULT_TIMEOUT_MS);
        assertThat(audit.maxInFlight()).isEqualTo(Destination.DEFAULT_MAX_IN_FLIGHT);
        assertThat(audit.rate()).isEmpty();
        assertThat(audit.headers().signs()).isFalse();
        assertThat(audit.ordering()).isEqualTo(Ordering.NONE);
        assertThat(audit.retry().maxAttempts()).isEqualTo(20);
        assertThat(audit.breaker().failures()).isEqualTo(5);

        assertThat(c.sources().get("gh").deliverTo()).containsExactly("app", "audit");
        assertThat(c.sources().get("plain").deliverTo()).isEmpty();
        assertThat(c.retention()).isEqualTo(new RetentionConfig(60, 120));
        assertThat(c.store().maxBytes()).isEqualTo(1_000_000);
    }

    @Test
    void withoutTheSectionsNothingIsDeliveredAndTheDefaultsHold() {
        SluiceConfig c = ConfigLoader.parse("");
        assertThat(c.destinations()).isEmpty();
        assertThat(c.retention()).isEqualTo(new RetentionConfig(604_800, 2_592_000));
        assertThat(c.store().bounded()).isFalse();
    }

    @Test
    void disableAfterTakesADurationOrSecondsAndConflictsWithTheBreakersKey() {
        for (String[] c : new String[][] {{"5d", "432000000"}, {"12h", "43200000"}, {"30m", "1800000"}, {"90s", "90000"},
                {"600", "600000"}, {"0", "0"}}) {
            SluiceConfig config = ConfigLoader.parse("destinations: {app: {url: \"https://h.test/\", disable_after: "
                    + c[0] + "}}");
            assertThat(config.destinations().get("app").breaker().disableAfterMs()).as(c[0]).isEqualTo(Long.parseLong(c[1]));
        }
        assertThat(ConfigLoader.parse("destinations: {app: {url: \"https://h.test/\"}}").destinations().get("app")
                .breaker().disableAfterMs()).isEqualTo(432_000_000L);
        ConfigException e = catchThrowableOfType(ConfigException.class, () -> ConfigLoader.parse(
                "destinations: {app: {url: \"https://h.test/\", disable_after: 5x}}"));
        assertThat(e.errors()).singleElement().asString()
                .startsWith("destinations.app.disable_after must be a duration such as 5d").endsWith("got \"5x\"");
        e = catchThrowableOfType(ConfigException.class, () -> ConfigLoader.parse(
                "destinations: {app: {url: \"https://h.test/\", disable_after: 1d, breaker: {disable_after_seconds: 60}}}"));
        assertThat(e.errors()).singleElement().asString()
                .isEqualTo("destinations.app.disable_after and destinations.app.breaker.disable_after_seconds are the same"
                        + " setting: give one of them, got both");
        e = catchThrowableOfType(ConfigException.class, () -> ConfigLoader.parse(
                "destinations: {app: {url: \"https://h.test/\", disable_after: 99999999999d}}"));
        assertThat(e.errors()).singleElement().asString().startsWith("destinations.app.disable_after must be");
    }

    @Test
    void aCaFileIsReadForHttpsOnly(@TempDir Path dir) throws Exception {
        Path ca = dir.resolve("ca.pem");
        Files.writeString(ca, "-----BEGIN CERTIFICATE-----\n");
        SluiceConfig c = ConfigLoader.parse("destinations: {app: {url: \"https://h.test/\", ca_file: \"" + ca + "\"}}");
        assertThat(http(c.destinations().get("app")).caFile()).contains(ca);
        ConfigException e = catchThrowableOfType(ConfigException.class,
                () -> ConfigLoader.parse("destinations: {app: {url: \"http://h.test/\", ca_file: \"" + ca + "\"}}"));
        assertThat(e.errors()).singleElement().asString()
                .startsWith("destinations.app.ca_file applies only to an https url, got ");
        e = catchThrowableOfType(ConfigException.class,
                () -> ConfigLoader.parse("destinations: {app: {url: \"https://h.test/\", ca_file: \"" + dir.resolve("no.pem") + "\"}}"));
        assertThat(e.errors()).singleElement().asString()
                .startsWith("destinations.app.ca_file must be a readable file of PEM certificates, got ")
                .endsWith("(no such file)");
    }

    static Stream<Arguments> refusals() {
        return Stream.of(
                bad("deliver_to names an unknown destination",
                        "destinations: {app: {url: \"http://127.0.0.1:9000/\"}}\n"
                                + "sources:\n  gh: {verify: {scheme: none}, deliver_to: [ap]}\n",
                        "sources.gh.deliver_to[0] names no configured destination: got \"ap\", configured: app"),
                bad("deliver_to without any destination",
                        SOURCE,
                        "sources.gh.deliver_to[0] names no configured destination: got \"app\" (no destinations are configured)"),
                bad("deliver_to names one twice",
                        "destinations: {app: {url: \"http://127.0.0.1:9000/\"}}\n"
                                + "sources:\n  gh: {verify: {scheme: none}, deliver_to: [app, app]}\n",
                        "sources.gh.deliver_to[1] names destination \"app\" twice"),
                bad("a bad destination is reported once, not again by the source naming it",
                        "destinations: {app: {url: \"ftp://127.0.0.1/\"}}\n" + SOURCE,
                        "destinations.app.url must be an http or https URL, got \"ftp://127.0.0.1/\""),
                bad("no url",
                        "destinations: {app: {timeout_ms: 5}}",
                        "destinations.app.url is required: where attempts are POSTed, http://host:port/path or https://..."),
                bad("a url without a host",
                        "destinations: {app: {url: \"http:/hooks\"}}",
                        "destinations.app.url must be an absolute URL with a host, got \"http:/hooks\""),
                bad("credentials in the url",
                        "destinations: {app: {url: \"http://u:p@h.test/\"}}",
                        "destinations.app.url must be a URL without user info (put credentials in headers), got \"http://u:p@h.test/\""),
                bad("an invalid name",
                        "destinations: {\"a b\": {url: \"http://h.test/\"}}",
                        "destinations has an invalid destination name \"a b\": a destination name is 1 to 64 characters from A-Z a-z 0-9 _ -"),
                bad("an unknown type",
                        "destinations: {app: {type: smtp, url: \"http://h.test/\"}}",
                        "destinations.app.type must be one of http, kafka, nats, got \"smtp\""),
                bad("an unknown key",
                        "destinations: {app: {url: \"http://h.test/\", retries: 3}}",
                        "unknown key \"destinations.app.retries\" (known keys here: type, url, timeout_ms, max_in_flight, rate,"
                                + " signing, headers, forward_headers, ordering, retry, breaker, disable_after, ca_file, transform)"),
                bad("a secret that is not whsec_",
                        "destinations: {app: {url: \"http://h.test/\", signing: {scheme: standard_webhooks, secret: \"hunter2-hunter2\"}}}",
                        "destinations.app.signing.secret must be whsec_ followed by the base64 of the key, got a 15-character value"
                                + " that does not start with whsec_ (redacted: secrets are never printed)"),
                bad("a secret whose key is not base64",
                        "destinations: {app: {url: \"http://h.test/\", signing: {scheme: standard_webhooks, secret: \"whsec_!!!\"}}}",
                        "destinations.app.signing.secret must be whsec_ followed by the base64 of the key, got a 9-character value"
                                + " whose key part is not base64 (redacted: secrets are never printed)"),
                bad("both secret and secrets",
                        "destinations: {app: {url: \"http://h.test/\", signing: {scheme: standard_webhooks, secret: \"whsec_c2VjcmV0\", secrets: [\"whsec_c2VjcmV0\"]}}}",
                        "destinations.app.signing.secret and secrets are both set: write one"),
                bad("a bad secret in a rotation",
                        "destinations: {app: {url: \"http://h.test/\", signing: {scheme: standard_webhooks, secrets: [\"whsec_c2VjcmV0\", \"hunter2\"]}}}",
                        "destinations.app.signing.secrets[1] must be whsec_ followed by the base64 of the key, got a 7-character value"
                                + " that does not start with whsec_ (redacted: secrets are never printed)"),
                bad("a signing header renamed to one Sluice sets",
                        "destinations: {app: {url: \"http://h.test/\", signing: {scheme: standard_webhooks, secret: \"whsec_c2VjcmV0\", id_header: Host}}}",
                        "destinations.app.signing.id_header must not name a header that Sluice sets itself or that frames the request, got \"Host\""),
                bad("two signing headers under one name",
                        "destinations: {app: {url: \"http://h.test/\", signing: {scheme: standard_webhooks, secret: \"whsec_c2VjcmV0\", id_header: X-A, signature_header: x-a}}}",
                        "destinations.app.signing must send id, timestamp and signature under three different names, got x-a, webhook-timestamp, x-a"),
                bad("a configured header under a signing header's name",
                        "destinations: {app: {url: \"http://h.test/\", headers: {X-Sig: a}, signing: {scheme: standard_webhooks, secret: \"whsec_c2VjcmV0\", signature_header: X-Sig}}}",
                        "destinations.app.headers.X-Sig must not name a header the signing block sends (id_header, timestamp_header, signature_header), got \"X-Sig\""),
                bad("an unknown signing scheme",
                        "destinations: {app: {url: \"http://h.test/\", signing: {scheme: github, secret: \"whsec_c2VjcmV0\"}}}",
                        "destinations.app.signing.scheme must be standard_webhooks, got \"github\""),
                bad("retry max below initial",
                        "destinations: {app: {url: \"http://h.test/\", retry: {initial_ms: 1000, max_ms: 10}}}",
                        "destinations.app.retry.max_ms must be at least destinations.app.retry.initial_ms (1000), got 10"),
                bad("retry zero attempts",
                        "destinations: {app: {url: \"http://h.test/\", retry: {max_attempts: 0}}}",
                        "destinations.app.retry.max_attempts must be an integer from 1 to 2147483647, got 0"),
                bad("a 2xx permanent status",
                        "destinations: {app: {url: \"http://h.test/\", retry: {permanent_statuses: [410, 204]}}}",
                        "destinations.app.retry.permanent_statuses[1] must be a status from 300 to 599 (2xx is delivered), got 204"),
                bad("breaker max below open",
                        "destinations: {app: {url: \"http://h.test/\", breaker: {open_ms: 5000, max_open_ms: 10}}}",
                        "destinations.app.breaker.max_open_ms must be at least destinations.app.breaker.open_ms (5000), got 10"),
                bad("breaker zero failures",
                        "destinations: {app: {url: \"http://h.test/\", breaker: {failures: 0}}}",
                        "destinations.app.breaker.failures must be an integer from 1 to 2147483647, got 0"),
                bad("max_in_flight zero",
                        "destinations: {app: {url: \"http://h.test/\", max_in_flight: 0}}",
                        "destinations.app.max_in_flight must be an integer between 1 and 10000, got 0"),
                bad("a rate with an unknown key",
                        "destinations: {app: {url: \"http://h.test/\", rate: {rate: 5, burst: 5, max_queue: 3}}}",
                        "unknown key \"destinations.app.rate.max_queue\" (known keys here: rate, burst)"),
                bad("a header Sluice sets itself",
                        "destinations: {app: {url: \"http://h.test/\", headers: {webhook-id: x}}}",
                        null),
                bad("retention out of range",
                        "retention: {hooks_seconds: 0}",
                        "retention.hooks_seconds must be an integer between 1 and 315360000, got 0"),
                bad("a negative store bound",
                        "store: {max_bytes: -1}",
                        "store.max_bytes must be an integer of at least 0, got -1"));
    }

    private static Arguments bad(String why, String yaml, String message) {
        return Arguments.of(why, yaml, message);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusals")
    void failsTheBootNamingTheKeyAndValue(String why, String yaml, String message) {
        ConfigException e = catchThrowableOfType(ConfigException.class, () -> ConfigLoader.parse(yaml));
        assertThat(e).as(why).isNotNull();
        if (message == null) {
            assertThat(e.errors()).as(why).singleElement().asString().startsWith("destinations.app.headers.webhook-id ");
        } else {
            assertThat(e.errors()).as(why).containsExactly(message);
        }
        assertThat(List.of(e.getMessage())).as(why).noneMatch(m -> m.contains("c2VjcmV0"));
    }

    private static HttpTarget http(Destination d) {
        return (HttpTarget) d.target();
    }
}
