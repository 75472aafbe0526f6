package org.sluice.edge.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.sluice.core.Limit;
import org.sluice.edge.dedupe.DedupeSpec;
import org.sluice.edge.intake.IntakeSettings;
import org.sluice.edge.verify.VerifySpec;

class ConfigLoaderTest {

    private static final Map<String, String> EXAMPLE_ENV = Map.of(
            "STRIPE_WHSEC", "whsec_c3RyaXBlLXRlc3Qtc2VjcmV0",
            "GH_SECRET", "gh-test-secret");

    static Path resource(String name) throws Exception {
        return Path.of(ConfigLoaderTest.class.getResource(name).toURI());
    }

    @Test
    void theIssuesFullExampleLoadsWithTheRightValues() throws Exception {
        SluiceConfig c = ConfigLoader.load(resource("full-example.yaml"), EXAMPLE_ENV);

        assertThat(c.node()).isEqualTo(new NodeConfig("edge-1", Path.of("./sluice-data")));
        assertThat(c.admin().listen()).isEqualTo(new HostPort("127.0.0.1", 9090));
        assertThat(c.admin().token()).isEmpty();
        assertThat(c.admin().metricsRequireToken()).isFalse();

        HttpConfig http = c.http();
        assertThat(http.listen()).isEqualTo(new HostPort("0.0.0.0", 8080));
        assertThat(http.prefix()).isEqualTo("/hooks");
        assertThat(http.routing()).isEqualTo(Routing.PATH);
        assertThat(http.maxBodyBytes()).isEqualTo(8_000_000L);
        assertThat(http.trustedProxies().cidrs()).extracting(Cidr::toString).containsExactly("10.0.0.0/8");
        assertThat(http.readTimeoutMs()).isEqualTo(10_000L);
        assertThat(http.maxHeaderBytes()).isEqualTo(16_384);
        assertThat(http.reusePort()).isFalse();
        assertThat(http.tls()).isEmpty();

        RateLimitsConfig rl = c.rateLimits();
        assertThat(rl.scope()).isEqualTo(LimitScope.NODE);
        assertThat(rl.shadow()).isFalse();
        assertThat(rl.perIp()).contains(Limit.of(100, 200));
        assertThat(rl.node()).contains(Limit.of(20000, 40000));
        assertThat(rl.sourceBytesPerSecond()).isEqualTo(100_000_000L);
        assertThat(rl.defaultLimit()).contains(Limit.of(50, 100).withBytesPerSecond(1_000_000).withMaxQueue(1000));
        assertThat(rl.tenants()).containsExactly(Map.entry("acme", Limit.of(500, 1000)));
        assertThat(rl.hostArena()).isEqualTo(Path.of("/dev/shm/sluice-edge-1"));
        assertThat(rl.configuredLimit("acme")).contains(Limit.of(500, 1000));
        assertThat(rl.configuredLimit("beta")).isEqualTo(rl.defaultLimit());

        assertThat(c.intake()).isEqualTo(new IntakeSettings(2, 256, 0, 10_000, 268_435_456L, 15_000L));
        assertThat(c.dedupe()).isEqualTo(new DedupeConfig(259_200L, DedupeScope.NODE));

        assertThat(c.sources().keySet()).containsExactly("stripe-acme", "gh-acme", "custom", "open");
        SourceConfig stripe = c.sources().get("stripe-acme");
        assertThat(stripe.tenant()).contains("acme");
        assertThat(stripe.verify()).isEqualTo(new VerifySpec("stripe", List.of("whsec_c3RyaXBlLXRlc3Qtc2VjcmV0"), 300,
                null, null, null, null));
        assertThat(stripe.dedupe()).isEqualTo(new DedupeSpec(DedupeSpec.Kind.STRIPE, null));
        assertThat(stripe.bytesPerSecond()).isEqualTo(100_000_000L);

        SourceConfig gh = c.sources().get("gh-acme");
        assertThat(gh.verify().scheme()).isEqualTo("github");
        assertThat(gh.verify().secrets()).containsExactly("gh-test-secret");
        assertThat(gh.dedupe().kind()).isEqualTo(DedupeSpec.Kind.GITHUB);
        assertThat(gh.bytesPerSecond()).isEqualTo(5_000_000L);

        SourceConfig custom = c.sources().get("custom");
        assertThat(custom.tenant()).contains("beta");
        assertThat(custom.verify()).isEqualTo(new VerifySpec("hmac", List.of("s3cret"), 300,
                "X-Signature", "sha256=", "sha256", "hex"));
        assertThat(custom.dedupe()).isEqualTo(new DedupeSpec(DedupeSpec.Kind.JSON, "event.id"));

        SourceConfig open = c.sources().get("open");
        assertThat(open.isShared()).isTrue();
        assertThat(open.verify()).isEqualTo(new VerifySpec("none", List.of(), 300, null, null, null, null));
        assertThat(open.dedupe()).isEqualTo(new DedupeSpec(DedupeSpec.Kind.HEADER, "X-Event-Id"));

        assertThat(c.fleet()).isEqualTo(FleetConfig.defaults());
    }

    @Test
    void theEmbeddedDefaultLoads() {
        SluiceConfig c = ConfigLoader.loadDefault(Map.of());
        assertThat(c.node().dataDir()).isEqualTo(Path.of("./sluice-data"));
        assertThat(c.http().listen()).isEqualTo(new HostPort("127.0.0.1", 8080));
        assertThat(c.admin().listen()).isEqualTo(new HostPort("127.0.0.1", 9090));
        assertThat(c.admin().hasToken()).isFalse();
        assertThat(c.rateLimits().tenants()).containsExactly(Map.entry("demo", Limit.of(1, 5)));
        SourceConfig demo = c.sources().get("demo");
        assertThat(demo.tenant()).contains("demo");
        assertThat(demo.verify()).isEqualTo(new VerifySpec("hmac", List.of("demo-secret"), 300,
                "X-Signature", "sha256=", "sha256", "hex"));
        assertThat(demo.dedupe()).isEqualTo(new DedupeSpec(DedupeSpec.Kind.HEADER, "X-Event-Id"));
    }

    @Test
    void theEmbeddedDefaultTakesTheAdminTokenFromTheEnvironment() {
        SluiceConfig c = ConfigLoader.loadDefault(Map.of("SLUICE_ADMIN_TOKEN", "0123456789abcdef0123"));
        assertThat(c.admin().token()).isEqualTo("0123456789abcdef0123");
    }

    @Test
    void anEmptyFileIsEveryDefault() {
        assertThat(ConfigLoader.parse("")).isEqualTo(SluiceConfig.defaults());
        assertThat(ConfigLoader.parse("# nothing but a comment\n")).isEqualTo(SluiceConfig.defaults());
    }

    @Test
    void theDefaultsAreTheDocumentedOnes() {
        SluiceConfig d = SluiceConfig.defaults();
        assertThat(d.node()).isEqualTo(new NodeConfig("edge-1", Path.of("./sluice-data")));
        assertThat(d.admin()).isEqualTo(new AdminConfig(new HostPort("127.0.0.1", 9090), "", false));
        assertThat(d.http()).isEqualTo(new HttpConfig(new HostPort("0.0.0.0", 8080), "/hooks", Routing.PATH,
                8_000_000L, CidrSet.empty(), 10_000L, 16_384, false, RefusedBody.CLOSE_IF_INCOMPLETE, Optional.empty(),
                268_435_456L, 0, HttpTransport.AUTO));
        assertThat(d.rateLimits()).isEqualTo(new RateLimitsConfig(LimitScope.NODE, false, Optional.empty(),
                Optional.empty(), 100_000_000L, Optional.empty(), Map.of(), Path.of("/dev/shm/sluice-edge-1")));
        assertThat(d.intake()).isEqualTo(new IntakeSettings(2, 256, 0, 10_000, 268_435_456L, 15_000L));
        assertThat(d.dedupe()).isEqualTo(new DedupeConfig(259_200L, DedupeScope.NODE));
        assertThat(d.fleet()).isEqualTo(new FleetConfig(List.of(URI.create("redis://127.0.0.1:6379")), 20, 0.5, 20,
                10_000, 5_000, 30_000, 5, 50_000, FleetFallback.SHARE));
        assertThat(d.sources()).isEmpty();
    }

    @Test
    void tenantPathWithoutADefaultIsRefusedAndSaysWhy() {
        assertThatThrownBy(() -> ConfigLoader.parse("http: {routing: tenant_path}"))
                .isInstanceOf(ConfigException.class)
                .hasMessage("http.routing tenant_path requires rate_limits.default: the URL lets a sender name any"
                        + " tenant, so without a default every tenant not listed in rate_limits.tenants would be"
                        + " unlimited");
    }

    @Test
    void tenantPathWithADefaultLoads() {
        SluiceConfig c = ConfigLoader.parse("http: {routing: tenant_path}\nrate_limits: {default: {rate: 5, burst: 10}}");
        assertThat(c.http().routing()).isEqualTo(Routing.TENANT_PATH);
        assertThat(c.rateLimits().defaultLimit()).contains(Limit.of(5, 10));
    }

    @Test
    void storeSharesAreReadBesideTheLimitsAndChosenAsTheLimitIs() {
        RateLimitsConfig limits = ConfigLoader.parse("""
                rate_limits:
                  default: {rate: 5, burst: 10, max_stored_bytes: 1000}
                  tenants:
                    big: {rate: 5, burst: 10, max_stored_bytes: 5000000000}
                    none: {rate: 5, burst: 10}
                """).rateLimits();
        assertThat(limits.maxStoredBytes("big")).hasValue(5_000_000_000L);
        assertThat(limits.maxStoredBytes("none")).as("its own entry, without a share").isEmpty();
        assertThat(limits.maxStoredBytes("other")).as("the default's").hasValue(1000);
        assertThat(limits.configuredLimit("big")).hasValueSatisfying(l -> assertThat(l.burst()).isEqualTo(10));
        assertThat(limits.hasStoredShares()).isTrue();
        assertThat(ConfigLoader.parse("").rateLimits().hasStoredShares()).isFalse();
    }
}
