package org.sluice.edge.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
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

/**
 * Configurations that must fail the boot, each with its exact message: the key path,
 * what is wanted, and the value found (never a secret).
 */
class BadConfigTest {

    private static final String GH = "sources:\n  gh: {tenant: acme, verify: {scheme: github, secrets: %s}}\n";

    static Stream<Arguments> badConfigs() {
        return Stream.of(
                bad("the issue's own example: a zero burst",
                        "rate_limits: {tenants: {acme: {rate: 500, burst: 0}}}",
                        "rate_limits.tenants.acme.burst must be an integer of at least 1, got 0"),
                bad("an unknown top-level section",
                        "htpp: {listen: \"0.0.0.0:8080\"}",
                        "unknown key \"htpp\" (known keys here: node, admin, http, rate_limits, intake, dedupe, sources, fleet, destinations, retention, store, logging, telemetry, events)"),
                bad("an unknown key inside a section",
                        "http: {max_body: 5}",
                        "unknown key \"http.max_body\" (known keys here: listen, prefix, routing, max_body_bytes,"
                                + " trusted_proxies, read_timeout_ms, max_header_bytes, reuse_port, refused_body, tls,"
                                + " max_inflight_body_bytes, max_connections_per_ip, transport)"),
                bad("an unknown key inside a limit",
                        "rate_limits: {default: {rate: 1, burst: 2, burts_bytes: 5}}",
                        "unknown key \"rate_limits.default.burts_bytes\" (known keys here: rate, burst, bytes_per_second,"
                                + " burst_bytes, max_body_bytes, max_queue, max_queue_bytes, max_stored_bytes)"),
                bad("a negative store share",
                        "rate_limits: {tenants: {acme: {rate: 5, burst: 5, max_stored_bytes: -1}}}",
                        "rate_limits.tenants.acme.max_stored_bytes must be an integer of at least 1, got -1"),
                bad("a store share that is not a number",
                        "rate_limits: {default: {rate: 5, burst: 5, max_stored_bytes: lots}}",
                        "rate_limits.default.max_stored_bytes must be an integer of at least 1, got \"lots\""),
                bad("a store share of 0 (no share is written by leaving the key out)",
                        "rate_limits: {default: {rate: 5, burst: 5, max_stored_bytes: 0}}",
                        "rate_limits.default.max_stored_bytes must be an integer of at least 1, got 0"),
                bad("a fractional store share",
                        "rate_limits: {tenants: {acme: {rate: 5, burst: 5, max_stored_bytes: 1.5}}}",
                        "rate_limits.tenants.acme.max_stored_bytes must be an integer of at least 1, got 1.5"),
                bad("a per-IP limit with a byte rate (it counts requests only)",
                        "rate_limits: {per_ip: {rate: 100, burst: 200, bytes_per_second: 1000}}",
                        "unknown key \"rate_limits.per_ip.bytes_per_second\" (known keys here: rate, burst)"),
                bad("a string where a number belongs",
                        "http: {max_body_bytes: big}",
                        "http.max_body_bytes must be an integer between 1 and 1073741824, got \"big\""),
                bad("a quoted number is a string, not a number",
                        "intake: {max_queue: \"10000\"}",
                        "intake.max_queue must be an integer of at least 1, got \"10000\""),
                bad("a fractional integer",
                        "intake: {max_batch: 2.5}",
                        "intake.max_batch must be an integer between 1 and 65536, got 2.5"),
                bad("no partitions",
                        "intake: {partitions: 0}",
                        "intake.partitions must be an integer between 1 and 64, got 0"),
                bad("a negative delay",
                        "intake: {max_delay_ms: -1}",
                        "intake.max_delay_ms must be an integer between 0 and 60000, got -1"),
                bad("a scope that does not exist",
                        "rate_limits: {scope: cluster}",
                        "rate_limits.scope must be one of node, host, fleet, got \"cluster\""),
                bad("a dedupe scope of host (dedupe has node and fleet only)",
                        "dedupe: {scope: host}",
                        "dedupe.scope must be one of node, fleet, got \"host\""),
                bad("a dedupe window so long that now + ttl overflows (it turned dedupe off)",
                        "dedupe: {ttl_seconds: 9000000000000000}",
                        "dedupe.ttl_seconds must be an integer between 1 and 315360000, got 9000000000000000"),
                bad("yes is not a boolean",
                        "rate_limits: {shadow: \"yes\"}",
                        "rate_limits.shadow must be true or false, got \"yes\""),
                bad("a listen address without a port",
                        "http: {listen: \"0.0.0.0\"}",
                        "http.listen must be host:port such as 127.0.0.1:9090 or [::1]:9090 (the port is missing),"
                                + " got \"0.0.0.0\""),
                bad("an IPv6 listen address without brackets",
                        "admin: {listen: \"::1:9090\"}",
                        "admin.listen must be host:port such as 127.0.0.1:9090 or [::1]:9090 (an IPv6 address must"
                                + " be written in brackets, e.g. [::1]:8080), got \"::1:9090\""),
                bad("a port out of range",
                        "http: {listen: \"127.0.0.1:70000\"}",
                        "http.listen must be host:port such as 127.0.0.1:9090 or [::1]:9090 (the port must be a number"
                                + " from 0 to 65535), got \"127.0.0.1:70000\""),
                bad("admin and ingest on one port",
                        "admin: {listen: \"127.0.0.1:8080\"}\nhttp: {listen: \"0.0.0.0:8080\"}",
                        "admin.listen must not share a port with http.listen, got \"127.0.0.1:8080\" and \"0.0.0.0:8080\""),
                bad("a trusted proxy network with host bits",
                        "http: {trusted_proxies: [\"10.1.2.3/8\"]}",
                        "http.trusted_proxies[0] must be an IP address or network such as 10.0.0.0/8 or fd00::/8"
                                + " (host bits are set; the network is 10.0.0.0/8), got \"10.1.2.3/8\""),
                bad("a trusted proxy given as a host name",
                        "http: {trusted_proxies: [\"10.0.0.0/8\", \"proxy.internal\"]}",
                        "http.trusted_proxies[1] must be an IP address or network such as 10.0.0.0/8 or fd00::/8"
                                + " (\"proxy.internal\" is not an IP address), got \"proxy.internal\""),
                bad("trusted proxies as one string instead of a list",
                        "http: {trusted_proxies: \"10.0.0.0/8\"}",
                        "http.trusted_proxies must be a list, got \"10.0.0.0/8\""),
                bad("a prefix without a leading slash",
                        "http: {prefix: hooks}",
                        "http.prefix must be a URL path such as /hooks (segments of A-Z a-z 0-9 . _ ~ -), got \"hooks\""),
                bad("a tenant body limit above the instance's",
                        "http: {max_body_bytes: 1000}\nrate_limits: {tenants: {acme: {rate: 1, burst: 1, max_body_bytes: 2000}}}",
                        "rate_limits.tenants.acme.max_body_bytes must be at most 1000, got 2000"),
                bad("a tenant id that is not one",
                        "rate_limits: {tenants: {\"acme corp\": {rate: 1, burst: 1}}}",
                        "rate_limits.tenants has an invalid tenant id \"acme corp\": a tenant id is 1 to 64 characters"
                                + " from A-Z a-z 0-9 . _ -, not starting with a dot"),
                bad("a tenant id that starts with a dot (no admin URL could name it)",
                        "rate_limits: {tenants: {\"..\": {rate: 1, burst: 1}}}",
                        "rate_limits.tenants has an invalid tenant id \"..\": a tenant id is 1 to 64 characters"
                                + " from A-Z a-z 0-9 . _ -, not starting with a dot"),
                bad("a limit without a burst",
                        "rate_limits: {default: {rate: 5}}",
                        "rate_limits.default.burst is required"),
                bad("a zero rate",
                        "rate_limits: {node: {rate: 0, burst: 10}}",
                        "rate_limits.node.rate must be a number greater than 0, got 0"),
                bad("tenant_path routing without a default limit",
                        "http: {routing: tenant_path}\nrate_limits: {tenants: {acme: {rate: 1, burst: 1}}}",
                        "http.routing tenant_path requires rate_limits.default: the URL lets a sender name any tenant,"
                                + " so without a default every tenant not listed in rate_limits.tenants would be unlimited"),
                bad("a routing that does not exist",
                        "http: {routing: header}",
                        "http.routing must be one of path, tenant_path, got \"header\""),
                bad("a refused-body policy that does not exist",
                        "http: {refused_body: drop}",
                        "http.refused_body must be one of close_if_incomplete, close, discard, got \"drop\""),
                bad("a transport that does not exist",
                        "http: {transport: iouring}",
                        "http.transport must be one of auto, io_uring, epoll, nio, got \"iouring\""),
                bad("a source without verify",
                        "sources: {gh: {tenant: acme}}",
                        "sources.gh.verify is required (write {scheme: none} to accept unsigned hooks)"),
                bad("an unknown verification scheme",
                        "sources: {gh: {verify: {scheme: gitlab, secrets: [x]}}}",
                        "sources.gh.verify.scheme must be one of github, stripe, shopify, slack, standard_webhooks, hmac,"
                                + " none, got \"gitlab\""),
                bad("a signed scheme without secrets",
                        "sources: {gh: {verify: {scheme: github}}}",
                        "sources.gh.verify.secrets is required for scheme github: a list of 1 to 8 secrets"),
                bad("an empty secret from an empty variable",
                        String.format(GH, "[\"${GH_SECRET:-}\"]"),
                        "sources.gh.verify.secrets[0] must not be empty, got \"\" from ${GH_SECRET:-}"),
                bad("an unset variable with no default",
                        String.format(GH, "[\"${GH_SECRET}\"]"),
                        "sources.gh.verify.secrets[0] uses ${GH_SECRET}, which is not set"
                                + " (write ${GH_SECRET:-default} to give it a default)"),
                bad("nine secrets (rotation keeps at most 8)",
                        String.format(GH, "[a, b, c, d, e, f, g, h, i]"),
                        "sources.gh.verify.secrets must list 1 to 8 secrets, got 9"),
                bad("a secret that YAML read as a number is never printed",
                        String.format(GH, "[123456]"),
                        "sources.gh.verify.secrets[0] must be a string, got a 6-character value"
                                + " (redacted: secrets are never printed)"),
                bad("a standard_webhooks secret that is not base64 (checked by the verifier factory)",
                        "sources: {sw: {verify: {scheme: standard_webhooks, secrets: [\"whsec_!!not-base64!!\"]}}}",
                        "sources.sw.verify.secrets[0] must be base64 after an optional \"whsec_\" prefix for scheme"
                                + " standard_webhooks, got a 20-character value (redacted)"),
                bad("a blank secret (checked by the verifier factory)",
                        String.format(GH, "[\"s3cret\", \"   \"]"),
                        "sources.gh.verify.secrets[1] must be a non-empty secret, got a blank value"),
                bad("hmac without its header",
                        "sources: {c: {verify: {scheme: hmac, secrets: [s3cret]}}}",
                        "sources.c.verify.header is required for scheme hmac: the header that carries the signature"),
                bad("an hmac algorithm that is not offered",
                        "sources: {c: {verify: {scheme: hmac, header: X-Sig, algorithm: md5, secrets: [s3cret]}}}",
                        "sources.c.verify.algorithm must be one of sha256, sha512, sha1, got \"md5\""),
                bad("an hmac-only key on another scheme",
                        "sources: {gh: {verify: {scheme: github, header: X-Sig, secrets: [s3cret]}}}",
                        "sources.gh.verify.header applies only to scheme hmac, not github"),
                bad("a tolerance on a scheme without timestamps",
                        "sources: {gh: {verify: {scheme: github, tolerance_seconds: 60, secrets: [s3cret]}}}",
                        "sources.gh.verify.tolerance_seconds applies only to the timestamped schemes stripe, slack,"
                                + " standard_webhooks, not github"),
                bad("secrets on scheme none",
                        "sources: {open: {verify: {scheme: none, secrets: [x]}}}",
                        "sources.open.verify.secrets must be absent for scheme none (it checks no signature)"),
                bad("a dedupe provider that does not exist",
                        "sources: {open: {verify: {scheme: none}, dedupe: gitlab}}",
                        "sources.open.dedupe must be one of github, standard_webhooks, svix, shopify, stripe, body_sha256, none,"
                                + " {header: NAME} or {json: a.b}, got \"gitlab\""),
                bad("a body digest other than body_sha256",
                        "sources: {open: {verify: {scheme: none}, dedupe: body_sha512}}",
                        "sources.open.dedupe must be one of github, standard_webhooks, svix, shopify, stripe, body_sha256, none,"
                                + " {header: NAME} or {json: a.b}, got \"body_sha512\""),
                bad("body_sha256 written as a mapping",
                        "sources: {open: {verify: {scheme: none}, dedupe: {body_sha256: true}}}",
                        "unknown key \"sources.open.dedupe.body_sha256\" (known keys here: header, json)"),
                bad("a dedupe mapping with two keys",
                        "sources: {open: {verify: {scheme: none}, dedupe: {header: X-Id, json: id}}}",
                        "sources.open.dedupe must be one of github, standard_webhooks, svix, shopify, stripe, body_sha256, none,"
                                + " {header: NAME} or {json: a.b}, got a mapping"),
                bad("a dedupe JSON path with an empty segment",
                        "sources: {open: {verify: {scheme: none}, dedupe: {json: \"event..id\"}}}",
                        "sources.open.dedupe.json must be a dotted path of JSON object keys such as event.id, got \"event..id\""),
                bad("a source id with a slash",
                        "sources: {\"a/b\": {verify: {scheme: none}}}",
                        "sources has an invalid source id \"a/b\": a source id is 1 to 64 characters from A-Z a-z 0-9 _ -"),
                bad("a source tenant that is not a tenant id",
                        "sources: {s: {tenant: \"acme corp\", verify: {scheme: none}}}",
                        "sources.s.tenant must be a tenant id of 1 to 64 characters from A-Z a-z 0-9 . _ -, not starting"
                                + " with a dot, got \"acme corp\""),
                bad("a short admin token is reported without its text",
                        "admin: {token: hunter2}",
                        "admin.token must be at least 16 characters (or empty, to generate one), got a 7-character value"
                                + " (redacted: secrets are never printed)"),
                bad("a breaker failure rate above 1",
                        "fleet: {breaker_failure_rate: 1.5}",
                        "fleet.breaker_failure_rate must be a number greater than 0 and at most 1, got 1.5"),
                bad("a fleet store that is not Redis, password redacted",
                        "fleet: {redis: \"http://user:pw@cache:6379\"}",
                        "fleet.redis must be a redis:// or rediss:// URI with a host, got \"http://***@cache:6379\""),
                bad("an empty cluster list",
                        "fleet: {redis: []}",
                        "fleet.redis must list at least one redis:// URI, got an empty list"),
                bad("a fallback that does not exist",
                        "fleet: {fallback: half}",
                        "fleet.fallback must be one of share, whole, got \"half\""),
                bad("a section that is not a mapping",
                        "intake: 5",
                        "intake must be a mapping, got 5"),
                bad("a node id with a space",
                        "node: {id: \"edge 1\"}",
                        "node.id must be 1 to 64 characters from A-Z a-z 0-9 _ - ., got \"edge 1\""),
                bad("a value from the environment that is not a number",
                        "http: {max_body_bytes: \"${MAX_BODY:-lots}\"}",
                        "http.max_body_bytes must be an integer between 1 and 1073741824, got \"lots\" (from ${MAX_BODY:-lots})"),
                bad("a header size below the floor",
                        "http: {max_header_bytes: 100}",
                        "http.max_header_bytes must be an integer between 1024 and 1048576, got 100"),
                bad("an in-flight body bound below the largest body",
                        "http: {max_body_bytes: 1000000, max_inflight_body_bytes: 999999}",
                        "http.max_inflight_body_bytes must be at least http.max_body_bytes (1000000), or no body of the"
                                + " largest size could ever be read, got 999999"),
                bad("an in-flight body bound of zero",
                        "http: {max_inflight_body_bytes: 0}",
                        "http.max_inflight_body_bytes must be an integer between 1 and 1099511627776, got 0"),
                bad("a negative connection cap",
                        "http: {max_connections_per_ip: -1}",
                        "http.max_connections_per_ip must be an integer between 0 and 1000000, got -1"));
    }

    private static Arguments bad(String why, String yaml, String... messages) {
        return Arguments.of(why, yaml, List.of(messages));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badConfigs")
    void failsTheBootWithItsExactMessage(String why, String yaml, List<String> messages, @TempDir Path dir) throws Exception {
        ConfigException e = catchThrowableOfType(ConfigException.class, () -> ConfigLoader.parse(yaml));
        assertThat(e).as(why).isNotNull();
        assertThat(e.errors()).as(why).containsExactlyElementsOf(messages);
        // check-config reads a file and reports the same list.
        Path file = dir.resolve("sluice.yaml");
        Files.writeString(file, yaml);
        assertThat(ConfigLoader.check(file, Map.of())).containsExactlyElementsOf(messages);
    }

    @Test
    void everyProblemIsReportedAtOnceInFileOrder() {
        String yaml = """
                node: {id: "edge 1"}
                http: {max_body_bytes: 0, listen: "nowhere"}
                rate_limits:
                  tenants:
                    acme: {rate: 500, burst: 0}
                    beta: {rate: -1, burst: 5}
                intake: {partitions: 0}
                sources:
                  gh: {verify: {scheme: github, secrets: ["${GH_SECRET}"]}}
                """;
        ConfigException e = catchThrowableOfType(ConfigException.class, () -> ConfigLoader.parse(yaml));
        assertThat(e.errors()).containsExactly(
                "sources.gh.verify.secrets[0] uses ${GH_SECRET}, which is not set (write ${GH_SECRET:-default} to give it a default)",
                "node.id must be 1 to 64 characters from A-Z a-z 0-9 _ - ., got \"edge 1\"",
                "http.listen must be host:port such as 127.0.0.1:9090 or [::1]:9090 (the port is missing), got \"nowhere\"",
                "http.max_body_bytes must be an integer between 1 and 1073741824, got 0",
                "rate_limits.tenants.acme.burst must be an integer of at least 1, got 0",
                "rate_limits.tenants.beta.rate must be a number greater than 0, got -1",
                "intake.partitions must be an integer between 1 and 64, got 0");
        assertThat(e.getMessage()).startsWith("7 configuration errors:\n  sources.gh.verify.secrets[0] uses");
    }

    @Test
    void aSecretIsNeverPartOfAnyMessage() {
        String secret = "hunter2-but-longer";
        String yaml = "admin: {token: \"short\"}\n"
                + "sources: {gh: {verify: {scheme: github, secrets: [\"" + secret + "\", \"\"]}}}\n";
        ConfigException e = catchThrowableOfType(ConfigException.class, () -> ConfigLoader.parse(yaml));
        assertThat(e.errors()).containsExactly(
                "admin.token must be at least 16 characters (or empty, to generate one), got a 5-character value"
                        + " (redacted: secrets are never printed)",
                "sources.gh.verify.secrets[1] must not be empty");
        assertThat(e.getMessage()).doesNotContain(secret).doesNotContain("\"short\"");
    }

    @Test
    void tlsFilesMustExistAndBeReadable(@TempDir Path dir) throws Exception {
        Path cert = Files.writeString(dir.resolve("cert.pem"), "-----BEGIN CERTIFICATE-----\n");
        Path missing = dir.resolve("key.pem");
        String yaml = "http: {tls: {cert_file: \"" + cert + "\", key_file: \"" + missing + "\"}}";
        assertThatThrownBy(() -> ConfigLoader.parse(yaml))
                .isInstanceOf(ConfigException.class)
                .hasMessage("http.tls.key_file must be a readable PEM file, got \"" + missing + "\" (no such file)");

        String dirAsCert = "http: {tls: {cert_file: \"" + dir + "\", key_file: \"" + cert + "\"}}";
        assertThatThrownBy(() -> ConfigLoader.parse(dirAsCert))
                .hasMessage("http.tls.cert_file must be a readable PEM file, got \"" + dir + "\" (not a regular file)");

        assertThatThrownBy(() -> ConfigLoader.parse("http: {tls: {cert_file: \"" + cert + "\"}}"))
                .hasMessage("http.tls.key_file is required when http.tls is set");
    }

    @Test
    void adminTlsTakesTheKeysOfHttpTlsWithTheSameChecks(@TempDir Path dir) throws Exception {
        Path cert = Files.writeString(dir.resolve("cert.pem"), "x");
        Path key = Files.writeString(dir.resolve("key.pem"), "x");
        SluiceConfig c = ConfigLoader.parse("admin: {tls: {cert_file: \"" + cert + "\", key_file: \"" + key + "\"}}");
        assertThat(c.admin().tls()).contains(new TlsConfig(cert, key));
        assertThat(c.http().tls()).isEmpty();

        assertThatThrownBy(() -> ConfigLoader.parse("admin: {tls: {cert_file: \"" + cert + "\"}}"))
                .hasMessage("admin.tls.key_file is required when admin.tls is set");
        assertThatThrownBy(() -> ConfigLoader.parse("admin: {tls: {cert_file: \"" + cert + "\", key: x}}"))
                .hasMessageContaining("unknown key \"admin.tls.key\" (known keys here: cert_file, key_file)");
    }

    @Test
    void anAllowedHostThatIsNoHostNameFailsTheBootNamingItsIndex() {
        assertThatThrownBy(() -> ConfigLoader.parse("admin: {allowed_hosts: [\"ok.example\", \"evil example\"]}"))
                .hasMessage("admin.allowed_hosts[1] must be a host name such as \"sluice-1.internal\" (or \"*\" for any),"
                        + " got \"evil example\"");
        assertThatThrownBy(() -> ConfigLoader.parse("admin: {allowed_hosts: \"ok.example\"}"))
                .hasMessageContaining("admin.allowed_hosts must be a list");
        assertThat(ConfigLoader.parse("admin: {allowed_hosts: [\"ok.example\", \"*\"]}").admin().allowedHosts())
                .containsExactly("ok.example", "*");
    }

    @Test
    void adminListenerLimitsAreBounded() {
        assertThatThrownBy(() -> ConfigLoader.parse("admin: {max_connections: 0}"))
                .hasMessage("admin.max_connections must be an integer between 1 and 10000, got 0");
        assertThatThrownBy(() -> ConfigLoader.parse("admin: {workers: 65}"))
                .hasMessage("admin.workers must be an integer between 1 and 64, got 65");
        assertThatThrownBy(() -> ConfigLoader.parse("admin: {read_timeout_ms: 0}"))
                .hasMessage("admin.read_timeout_ms must be an integer between 1 and 3600000, got 0");
        assertThatThrownBy(() -> ConfigLoader.parse("admin: {idle_timeout_ms: -5}"))
                .hasMessage("admin.idle_timeout_ms must be an integer between 1 and 3600000, got -5");
        SluiceConfig c = ConfigLoader.parse("admin: {read_timeout_ms: 500, idle_timeout_ms: 700, max_connections: 3,"
                + " workers: 4}");
        assertThat(c.admin()).extracting(a -> a.readTimeoutMs(), a -> a.idleTimeoutMs(), a -> a.maxConnections(),
                a -> a.workers()).containsExactly(500L, 700L, 3, 4);
    }

    @Test
    void tlsWithBothFilesLoads(@TempDir Path dir) throws Exception {
        Path cert = Files.writeString(dir.resolve("cert.pem"), "x");
        Path key = Files.writeString(dir.resolve("key.pem"), "x");
        SluiceConfig c = ConfigLoader.parse("http: {tls: {cert_file: \"" + cert + "\", key_file: \"" + key + "\"}}");
        assertThat(c.http().tls()).contains(new TlsConfig(cert, key));
    }

    @Test
    void unreadableYamlNamesTheFileAndTheLine(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("broken.yaml"), "http:\n  listen: [unclosed\n");
        List<String> errors = ConfigLoader.check(file, Map.of());
        assertThat(errors).hasSize(1);
        assertThat(errors.get(0)).startsWith(file + " is not valid YAML: ").contains("(line ");
    }

    @Test
    void aDuplicateKeyIsRefused() {
        ConfigException e = catchThrowableOfType(ConfigException.class,
                () -> ConfigLoader.parse("http: {listen: \"127.0.0.1:1\"}\nhttp: {listen: \"127.0.0.1:2\"}\n"));
        assertThat(e.getMessage()).startsWith("the configuration is not valid YAML: Duplicate field 'http'");
    }

    @Test
    void aMissingFileIsNamed(@TempDir Path dir) {
        Path file = dir.resolve("nope.yaml");
        assertThat(ConfigLoader.check(file, Map.of())).containsExactly("config file " + file + " does not exist");
    }

    @Test
    void aFactoryMessageNeverCarriesASecret() {
        var spec = new org.sluice.edge.verify.VerifySpec("github", List.of("topsecret-value"), 300, null, null, null, null);
        assertThat(VerifierCheck.scrub("x got \"topsecret-value\" here", spec))
                .isEqualTo("x got \"<a 15-character secret, redacted>\" here");
    }

    @Test
    void aTopLevelListIsRefused() {
        assertThatThrownBy(() -> ConfigLoader.parse("- a\n- b\n"))
                .hasMessage("the configuration must be a mapping, got a list");
    }
}
