package org.sluice.edge.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.sluice.core.Limit;

/** Values that are accepted, section by section, beyond the issue's example. */
class SectionsTest {

    @Test
    void theKeysOfLaterIssuesAreModelledAlready() {
        SluiceConfig c = ConfigLoader.parse("""
                node: {id: edge-7}
                admin: {token: "0123456789abcdefXYZ", metrics_require_token: true}
                http: {reuse_port: true}
                rate_limits: {scope: host}
                dedupe: {scope: fleet, ttl_seconds: 60}
                fleet:
                  redis: ["redis://10.0.0.1:7000", "rediss://user:pw@10.0.0.2:7001"]
                  timeout_ms: 15
                  breaker_failure_rate: 0.25
                  breaker_min_calls: 10
                  breaker_window_ms: 2000
                  breaker_open_ms: 1000
                  pending_ttl_ms: 5000
                  settle_interval_ms: 2
                  settle_queue_max: 100
                  fallback: whole
                """);
        assertThat(c.admin().token()).isEqualTo("0123456789abcdefXYZ");
        assertThat(c.admin().metricsRequireToken()).isTrue();
        assertThat(c.http().reusePort()).isTrue();
        assertThat(c.rateLimits().scope()).isEqualTo(LimitScope.HOST);
        assertThat(c.rateLimits().hostArena()).isEqualTo(Path.of("/dev/shm/sluice-edge-7"));
        assertThat(c.dedupe()).isEqualTo(new DedupeConfig(60, DedupeScope.FLEET));
        assertThat(c.fleet()).isEqualTo(new FleetConfig(
                List.of(URI.create("redis://10.0.0.1:7000"), URI.create("rediss://user:pw@10.0.0.2:7001")),
                15, 0.25, 10, 2000, 1000, 5000, 2, 100, FleetFallback.WHOLE));
        assertThat(c.fleet().isCluster()).isTrue();
        assertThat(c.fleet().toString()).contains("rediss://***@10.0.0.2:7001").doesNotContain("pw");
        assertThat(c.admin().toString()).doesNotContain("0123456789abcdef");
    }

    @Test
    void aSingleRedisUriAndAnExplicitArena() {
        SluiceConfig c = ConfigLoader.parse("""
                rate_limits: {scope: fleet, host_arena: /dev/shm/custom}
                fleet: {redis: "redis://cache:6380/0"}
                """);
        assertThat(c.fleet().redis()).containsExactly(URI.create("redis://cache:6380/0"));
        assertThat(c.fleet().isCluster()).isFalse();
        assertThat(c.rateLimits().scope()).isEqualTo(LimitScope.FLEET);
        assertThat(c.rateLimits().hostArena()).isEqualTo(Path.of("/dev/shm/custom"));
    }

    @Test
    void theHostArenaGroupIsAGroupName() {
        assertThat(ConfigLoader.parse("rate_limits: {scope: host}").rateLimits().hostArenaGroup()).isEmpty();
        assertThat(ConfigLoader.parse("rate_limits: {scope: host, host_arena_group: sluice}").rateLimits().hostArenaGroup())
                .contains("sluice");
        assertThat(catchThrowableOfType(ConfigException.class,
                () -> ConfigLoader.parse("rate_limits: {host_arena_group: \"-x y\"}")).errors())
                .containsExactly("rate_limits.host_arena_group must be a group name (1 to 32 characters from A-Z a-z 0-9 _ . -,"
                        + " not starting with -), got \"-x y\"");
    }

    @Test
    void prefixesAreNormalized() {
        assertThat(ConfigLoader.parse("http: {prefix: /}").http().prefix()).isEmpty();
        assertThat(ConfigLoader.parse("http: {prefix: \"\"}").http().prefix()).isEmpty();
        assertThat(ConfigLoader.parse("http: {prefix: /in/hooks/}").http().prefix()).isEqualTo("/in/hooks");
        assertThat(ConfigLoader.parse("http: {prefix: /v1.hooks}").http().prefix()).isEqualTo("/v1.hooks");
        assertThat(catchThrowableOfType(ConfigException.class, () -> ConfigLoader.parse("http: {prefix: /a//b}")).errors())
                .containsExactly("http.prefix must be a URL path such as /hooks (segments of A-Z a-z 0-9 . _ ~ -), got \"/a//b\"");
    }

    @Test
    void listenAddressesTakeIpv6AndPortZero() {
        SluiceConfig c = ConfigLoader.parse("http: {listen: \"[::]:0\"}\nadmin: {listen: \"[::1]:0\"}");
        assertThat(c.http().listen()).isEqualTo(new HostPort("::", 0));
        assertThat(c.admin().listen()).isEqualTo(new HostPort("::1", 0));
    }

    @Test
    void aSourceOverridesTheDefaultSourceByteRate() {
        SluiceConfig c = ConfigLoader.parse("""
                rate_limits: {sources: {default: {bytes_per_second: 1000}}}
                sources:
                  a: {verify: {scheme: none}}
                  b: {verify: {scheme: none}, bytes_per_second: 50}
                """);
        assertThat(c.rateLimits().sourceBytesPerSecond()).isEqualTo(1000);
        assertThat(c.sources().get("a").bytesPerSecond()).isEqualTo(1000);
        assertThat(c.sources().get("b").bytesPerSecond()).isEqualTo(50);
    }

    @Test
    void everyOptionalLimitFieldIsCarried() {
        SluiceConfig c = ConfigLoader.parse("""
                rate_limits:
                  tenants:
                    acme: {rate: 0.5, burst: 2, bytes_per_second: 1000, burst_bytes: 4000, max_body_bytes: 100,
                           max_queue: 3, max_queue_bytes: 5000}
                """);
        assertThat(c.rateLimits().tenants().get("acme")).isEqualTo(Limit.of(0.5, 2).withBytesPerSecond(1000)
                .withBurstBytes(4000).withMaxBodyBytes(100).withMaxQueue(3).withMaxQueueBytes(5000));
    }

    @Test
    void theTimestampedSchemesTakeATolerance() {
        SluiceConfig c = ConfigLoader.parse("""
                sources:
                  sl: {verify: {scheme: slack, secrets: [x], tolerance_seconds: 60}}
                  sw: {verify: {scheme: standard_webhooks, secrets: ["whsec_c2VjcmV0"]}, dedupe: standard_webhooks}
                  sh: {verify: {scheme: shopify, secrets: [y]}, dedupe: shopify}
                  sv: {verify: {scheme: none}, dedupe: svix}
                """);
        assertThat(c.sources().get("sl").verify().toleranceSeconds()).isEqualTo(60);
        assertThat(c.sources().get("sw").verify().toleranceSeconds()).isEqualTo(300);
        assertThat(c.sources().get("sw").dedupe().kind()).isEqualTo(org.sluice.edge.dedupe.DedupeSpec.Kind.STANDARD_WEBHOOKS);
        assertThat(c.sources().get("sh").dedupe().kind()).isEqualTo(org.sluice.edge.dedupe.DedupeSpec.Kind.SHOPIFY);
        assertThat(c.sources().get("sv").dedupe().kind()).isEqualTo(org.sluice.edge.dedupe.DedupeSpec.Kind.SVIX);
    }

    @Test
    void bodySha256IsADedupeSetting() {
        SluiceConfig c = ConfigLoader.parse("""
                sources:
                  gh: {verify: {scheme: github, secrets: [z]}, dedupe: body_sha256}
                """);
        assertThat(c.sources().get("gh").dedupe())
                .isEqualTo(new org.sluice.edge.dedupe.DedupeSpec(org.sluice.edge.dedupe.DedupeSpec.Kind.BODY_SHA256, null));
    }

    @Test
    void anUnresolvedVariableInALimitIsReportedOnce() {
        ConfigException e = catchThrowableOfType(ConfigException.class,
                () -> ConfigLoader.parse("http: {routing: tenant_path}\nrate_limits: {default: {rate: \"${R}\", burst: 5}}"));
        assertThat(e.errors()).containsExactly(
                "rate_limits.default.rate uses ${R}, which is not set (write ${R:-default} to give it a default)");
    }

    @Test
    void theSummaryNamesTheEssentialsAndNoSecret() {
        SluiceConfig c = ConfigLoader.loadDefault(Map.of("SLUICE_ADMIN_TOKEN", "tok-0123456789abcdef"));
        assertThat(c.summary()).isEqualTo("node=edge-1 data_dir=./sluice-data ingest=http://127.0.0.1:8080/hooks"
                + " routing=path refused_body=close_if_incomplete admin=127.0.0.1:9090 scope=node shadow=false per_ip=off node_limit=off"
                + " default_limit=none tenants=1 sources=1 partitions=2 dedupe=node/259200s destinations=0 retention=604800s/2592000s store=rocksdb store_max_bytes=off tracing=off");
        assertThat(c.toString()).doesNotContain("tok-0123456789abcdef").doesNotContain("demo-secret");
    }
}
