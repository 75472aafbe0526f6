package org.sluice.edge.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The load generator against a real edge on real sockets. Counts only: no timing is asserted. */
class LoadRunTest {

    private static final String HMAC_SOURCE = """
            http: {listen: "127.0.0.1:0"}
            rate_limits:
              tenants:
                acme: {rate: 1, burst: %d}
            sources:
              demo:
                tenant: acme
                verify: {scheme: hmac, header: X-Signature, prefix: "sha256=", algorithm: sha256, encoding: hex, secrets: ["s3cret"]}
                dedupe: {header: X-Event-Id}
            """;

    @TempDir
    Path dir;

    @Test
    void everyRequestEndsAsOneAnswerAndATenantsSpentBurstIsCountedAsScopeTenant() throws Exception {
        try (LoadEdge edge = new LoadEdge(dir, HMAC_SOURCE.formatted(20))) {
            List<String> lines = new ArrayList<>();
            LoadRun.Result r = LoadRun.run(edge.options("demo", "hmac", "s3cret"), lines::add);
            Map<String, Object> s = r.summary();
            long sent = (Long) s.get("sent");
            assertThat(sent).isEqualTo(80).isEqualTo(s.get("offered"));
            assertThat(s.get("not_sent")).isEqualTo(0L);
            assertThat(s.get("errors")).isEqualTo(0L);
            assertThat(statusSum(s) + (Long) s.get("errors")).isEqualTo(sent);
            assertThat(status(s, 202)).isEqualTo(20);
            assertThat(status(s, 429)).isEqualTo(60);
            assertThat(scopes(s)).containsExactly(Map.entry("tenant", 60L));
            assertThat(lines).isNotEmpty().allSatisfy(l -> assertThat(l).contains("sent").contains("202").contains("429"));
            assertThat(lines.get(lines.size() - 1)).contains("sent 80").contains("202 20").contains("429 60 (tenant 60)");
            assertThat(r.seconds().stream().mapToLong(x -> x.delta().sent()).sum()).isEqualTo(80);
        }
    }

    @Test
    void badSignaturesOfOneAreAllRefused401() throws Exception {
        try (LoadEdge edge = new LoadEdge(dir, HMAC_SOURCE.formatted(1000))) {
            LoadOptions o = edge.options("demo", "hmac", "s3cret");
            o = new LoadOptions(o.url(), o.source(), o.scheme(), o.secret(), o.rate(), o.durationNanos(), o.connections(),
                    o.bodyBytes(), 0, 1.0, 0, o.seed());
            Map<String, Object> s = LoadRun.run(o, l -> { }).summary();
            assertThat(s.get("sent")).isEqualTo(80L);
            assertThat(status(s, 401)).isEqualTo(80);
            assertThat(statusSum(s)).isEqualTo(80);
            assertThat(s.get("bad_signatures_sent")).isEqualTo(80L);
        }
    }

    /** Each scheme's signature passes its verifier, and a duplicate carries the key its default dedupe reads. */
    @ParameterizedTest
    @CsvSource({
        "hmac,              's3cret',                                   '{scheme: hmac, header: X-Signature, prefix: \"sha256=\", secrets: [\"s3cret\"]}', '{header: X-Event-Id}'",
        "github,            's3cret',                                   '{scheme: github, secrets: [\"s3cret\"]}',                                      github",
        "stripe,            'whsec_abc',                                '{scheme: stripe, secrets: [\"whsec_abc\"]}',                                   stripe",
        "standard_webhooks, 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',    '{scheme: standard_webhooks, secrets: [\"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw\"]}', standard_webhooks",
    })
    void duplicatesAreAnsweredDuplicateUnderEachSchemesDefaultDedupe(String scheme, String secret, String verify, String dedupe)
            throws Exception {
        String yaml = """
                http: {listen: "127.0.0.1:0"}
                sources:
                  src: {tenant: acme, verify: %s, dedupe: %s}
                """.formatted(verify, dedupe);
        try (LoadEdge edge = new LoadEdge(dir, yaml)) {
            LoadOptions o = edge.options("src", scheme, secret);
            o = new LoadOptions(o.url(), o.source(), o.scheme(), o.secret(), o.rate(), o.durationNanos(), o.connections(),
                    o.bodyBytes(), 0.3, 0, 0, 11);
            Map<String, Object> s = LoadRun.run(o, l -> { }).summary();
            long sent = (Long) s.get("sent");
            long duplicates = (Long) s.get("duplicates_sent");
            assertThat(sent).isEqualTo(80);
            assertThat(duplicates).isPositive();
            assertThat(status(s, 200)).isEqualTo(duplicates);
            assertThat(status(s, 202)).isEqualTo(sent - duplicates);
        }
    }

    @Test
    void tenantsSpreadRequestsOverTenantPathsEachWithItsOwnBurst() throws Exception {
        String yaml = """
                http: {listen: "127.0.0.1:0", routing: tenant_path}
                rate_limits:
                  default: {rate: 1, burst: 5}
                sources:
                  shared: {verify: {scheme: github, secrets: ["s3cret"]}, dedupe: github}
                """;
        try (LoadEdge edge = new LoadEdge(dir, yaml)) {
            LoadOptions o = edge.options("shared", "github", "s3cret");
            o = new LoadOptions(o.url(), o.source(), o.scheme(), o.secret(), o.rate(), o.durationNanos(), o.connections(),
                    o.bodyBytes(), 0, 0, 3, 5);
            Map<String, Object> s = LoadRun.run(o, l -> { }).summary();
            assertThat(status(s, 202)).isEqualTo(15);
            assertThat(status(s, 429)).isEqualTo(80 - 15);
            assertThat(scopes(s)).containsExactly(Map.entry("tenant", 65L));
        }
    }

    /**
     * A server that takes connections and never answers: the one connection carries one
     * request, which ends as an error when the run closes it; every other due request waited
     * in the queue and is counted not sent. Nothing is lost from the accounting.
     */
    @Test
    void aServerThatNeverAnswersLeavesOneErrorPerConnectionAndTheRestNotSent() throws Exception {
        try (java.net.ServerSocket silent = new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            LoadOptions o = new LoadOptions(java.net.URI.create("http://127.0.0.1:" + silent.getLocalPort() + "/hooks"),
                    "demo", "hmac", "s3cret", 20, 1_000_000_000L, 1, 100, 0, 0, 0, 3);
            Map<String, Object> s = LoadRun.run(o, l -> { }).summary();
            assertThat(s.get("offered")).isEqualTo(20L);
            assertThat(s.get("sent")).isEqualTo(1L);
            assertThat(s.get("errors")).isEqualTo(1L);
            assertThat(s.get("not_sent")).isEqualTo(19L);
            assertThat(statusSum(s)).isZero();
        }
    }

    @Test
    void intendedSendTimesAreExactAndEvenlySpaced() {
        assertThat(LoadRun.intended(0, 3)).isZero();
        assertThat(LoadRun.intended(1, 3)).isEqualTo(333_333_333L);
        assertThat(LoadRun.intended(3, 3)).isEqualTo(1_000_000_000L);
        assertThat(LoadRun.intended(1_000_000_000_000L, 1_000_000_000L)).isEqualTo(1_000_000_000_000L);
        java.math.BigInteger exact = java.math.BigInteger.valueOf(9_999_999_999L).multiply(java.math.BigInteger.valueOf(1_000_000_000L))
                .divide(java.math.BigInteger.valueOf(7));
        assertThat(LoadRun.intended(9_999_999_999L, 7)).isEqualTo(exact.longValueExact());
    }

    @Test
    void durationsReadWithTheirUnit() {
        assertThat(LoadOptions.parseDuration("60s")).isEqualTo(60_000_000_000L);
        assertThat(LoadOptions.parseDuration("500ms")).isEqualTo(500_000_000L);
        assertThat(LoadOptions.parseDuration("2m")).isEqualTo(120_000_000_000L);
        assertThat(LoadOptions.parseDuration("1h")).isEqualTo(3_600_000_000_000L);
        assertThat(LoadOptions.parseDuration("3")).isEqualTo(3_000_000_000L);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> LoadOptions.parseDuration("1.5s"))
                .hasMessage("--duration must be a whole number with ms, s, m or h (e.g. 60s), got \"1.5s\"");
    }

    @SuppressWarnings("unchecked")
    static long status(Map<String, Object> s, int code) {
        return ((Map<String, Long>) s.get("status")).getOrDefault(Integer.toString(code), 0L);
    }

    @SuppressWarnings("unchecked")
    static long statusSum(Map<String, Object> s) {
        return ((Map<String, Long>) s.get("status")).values().stream().mapToLong(Long::longValue).sum();
    }

    @SuppressWarnings("unchecked")
    static Map<String, Long> scopes(Map<String, Object> s) {
        return (Map<String, Long>) s.get("refused_by_scope");
    }
}
