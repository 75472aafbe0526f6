package org.sluice.edge.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/openapi cannot drift from the code: real answers of a running server, one of as many
 * documented statuses as a test can cause, are checked against the description of their
 * route and status (bodies against the JSON Schemas, headers against theirs), and every
 * operation the descriptions list must have been exercised.
 */
class OpenApiContractTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    // ------------------------------------------------------------------ the documents themselves

    @Test
    void bothDescriptionsAreOpenApi31AndEveryRefResolves() {
        for (String name : List.of("ingest.yaml", "admin.yaml")) {
            OpenApiDocument doc = OpenApiDocument.load(name);
            assertThat(doc.root.path("openapi").asText()).as(name).matches("3\\.1\\.\\d+");
            assertThat(doc.root.path("info").path("title").asText()).as(name).isNotBlank();
            assertThat(doc.operations()).as(name).isNotEmpty();
            List<String> refs = doc.refs();
            assertThat(refs).as(name).isNotEmpty();
            refs.forEach(doc::target); // fails naming the first reference that names nothing
            // every schema compiles as JSON Schema 2020-12 once its references are inlined
            doc.root.path("components").path("schemas").fields().forEachRemaining(s ->
                    OpenApiDocument.compile(doc.inline(s.getValue())));
        }
    }

    // ------------------------------------------------------------------ ingest

    @Test
    void ingestAnswersMatchTheDescription() throws Exception {
        OpenApiDocument spec = OpenApiDocument.load("ingest.yaml");
        try (TestEdge edge = TestEdge.start(dir.resolve("path"), """
                http: {listen: "127.0.0.1:0", max_body_bytes: 1000, max_header_bytes: 2048, read_timeout_ms: 1500,
                       trusted_proxies: ["127.0.0.5"]}
                rate_limits:
                  per_ip: {rate: 1, burst: 40}
                  tenants:
                    acme: {rate: 1, burst: 3}
                sources:
                  open:   {tenant: acme, verify: {scheme: none}, dedupe: {header: X-Event-Id}}
                  free:   {verify: {scheme: none}}
                  signed: {verify: {scheme: hmac, header: X-Signature, prefix: "sha256=", algorithm: sha256, encoding: hex, secrets: ["s3cret"]}}
                """)) {
            InetSocketAddress at = edge.address;
            spec.check("GET", "/healthz", Http.get(at, "/healthz"));
            spec.check("GET", "/readyz", Http.get(at, "/readyz"));

            // 202 with RateLimit fields, 200 duplicate, 429 tenant
            Http.Response accepted = edge.post("/hooks/open", Map.of("X-Event-Id", "e1"), "{}");
            assertThat(accepted.status()).isEqualTo(202);
            assertThat(accepted.header("ratelimit")).isNotNull();
            spec.check("POST", "/hooks/open", accepted);
            Http.Response duplicate = edge.post("/hooks/open", Map.of("X-Event-Id", "e1"), "{}");
            assertThat(duplicate.status()).isEqualTo(200);
            spec.check("POST", "/hooks/open", duplicate);
            Http.Response tenantLimited = null;
            for (int i = 2; i < 10 && tenantLimited == null; i++) {
                Http.Response r = edge.post("/hooks/open", Map.of("X-Event-Id", "e" + i), "{}");
                spec.check("POST", "/hooks/open", r);
                tenantLimited = r.status() == 429 ? r : null;
            }
            assertThat(tenantLimited).isNotNull();
            assertThat(JSON.readTree(tenantLimited.body()).get("scope").asText()).isEqualTo("tenant");

            // 401, each reason a signature can fail for without a timestamp
            Map<String, String> signatures = new LinkedHashMap<>();
            signatures.put("missing_signature", null);
            signatures.put("malformed_signature", "sha256=not-hex");
            signatures.put("no_match", "sha256=" + "0".repeat(64));
            for (Map.Entry<String, String> s : signatures.entrySet()) {
                Http.Response r = edge.post("/hooks/signed", s.getValue() == null ? Map.of() : Map.of("X-Signature", s.getValue()), "{}");
                assertThat(r.status()).as(s.getKey()).isEqualTo(401);
                assertThat(JSON.readTree(r.body()).get("reason").asText()).isEqualTo(s.getKey());
                spec.check("POST", "/hooks/signed", r);
            }
            Http.Response signed = edge.post("/hooks/signed", Map.of("X-Signature", "sha256=" + hmac("s3cret", "{}")), "{}");
            assertThat(signed.status()).isEqualTo(202);
            spec.check("POST", "/hooks/signed", signed);

            // 404 unknown source; other methods and paths: not_found
            spec.check("POST", "/hooks/nope", edge.post("/hooks/nope", Map.of(), "{}"));
            spec.checkUndescribed("NotFound", "GET /hooks/free", Http.get(at, "/hooks/free"));
            spec.checkUndescribed("NotFound", "POST /elsewhere", edge.post("/elsewhere", Map.of(), "{}"));

            // 413, 400 invalid_header, 400 bad_request, 417, 431, 400 invalid_forwarded_for, 408
            spec.check("POST", "/hooks/free", raw(at, null, "POST /hooks/free HTTP/1.1\r\nHost: t\r\nContent-Length: 1001\r\n\r\n", 413));
            spec.check("POST", "/hooks/free", raw(at, null, "POST /hooks/free HTTP/1.1\r\nHost: t\r\nX@Odd: v\r\nContent-Length: 2\r\n\r\n{}", 400));
            spec.check("POST", "/hooks/free", raw(at, null, "POST /hooks/free HTTP/1.1\r\nHost: t\r\nContent-Length: x\r\n\r\n", 400));
            spec.check("POST", "/hooks/free", raw(at, null, "POST /hooks/free HTTP/1.1\r\nHost: t\r\nExpect: 200-ok\r\nContent-Length: 2\r\n\r\n", 417));
            spec.check("POST", "/hooks/free", raw(at, null, "POST /hooks/free HTTP/1.1\r\nHost: t\r\nX-Big: " + "v".repeat(3000)
                    + "\r\nContent-Length: 2\r\n\r\n{}", 431));
            spec.check("POST", "/hooks/free", raw(at, InetAddress.getByName("127.0.0.5"),
                    "POST /hooks/free HTTP/1.1\r\nHost: t\r\nX-Forwarded-For: not-an-address\r\nContent-Length: 2\r\n\r\n{}", 400));
            spec.check("POST", "/hooks/free", raw(at, null, "POST /hooks/free HTTP/1.1\r\nHost: t\r\nContent-Length: 10\r\n\r\nabc", 408));

            // 429 ip: one address spends its burst (the clock is manual: nothing refills)
            InetAddress flooder = InetAddress.getByName("127.0.0.9");
            Http.Response ipLimited = null;
            for (int i = 0; i < 100 && ipLimited == null; i++) {
                Http.Response r = raw(at, flooder, "POST /hooks/free HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\n\r\n{}", -1);
                spec.check("POST", "/hooks/free", r);
                ipLimited = r.status() == 429 ? r : null;
            }
            assertThat(ipLimited).isNotNull();
            assertThat(JSON.readTree(ipLimited.body()).get("scope").asText()).isEqualTo("ip");
        }

        // tenant_path routing, and the connection cap's 503
        try (TestEdge edge = TestEdge.start(dir.resolve("tenant"), """
                http: {listen: "127.0.0.1:0", routing: tenant_path, max_connections_per_ip: 1}
                rate_limits:
                  default: {rate: 100, burst: 100}
                sources:
                  open: {tenant: acme, verify: {scheme: none}}
                """)) {
            // each from an address of its own: the cap of 1 must not see an earlier connection still closing
            spec.check("POST", "/hooks/acme/open", raw(edge.address, InetAddress.getByName("127.0.0.12"),
                    "POST /hooks/acme/open HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\n\r\n{}", 202));
            spec.check("POST", "/hooks/beta/open", raw(edge.address, InetAddress.getByName("127.0.0.13"),
                    "POST /hooks/beta/open HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\n\r\n{}", 404));
            InetAddress capped = InetAddress.getByName("127.0.0.11");
            try (Http held = Http.connect(edge.address, capped)) {
                held.write("POST /hooks/acme/open HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\n\r\n{}");
                assertThat(held.read().status()).isEqualTo(202); // the first connection is open and counted
                spec.check("POST", "/hooks/acme/open",
                        raw(edge.address, capped, "POST /hooks/acme/open HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\n\r\n{}", 503));
            }
        }

        assertThat(spec.exercised()).isEqualTo(spec.operations());
    }

    // ------------------------------------------------------------------ admin

    @Test
    void adminAnswersMatchTheDescription() throws Exception {
        OpenApiDocument spec = OpenApiDocument.load("admin.yaml");
        try (TestEdge edge = TestEdge.startWhole(dir, """
                node: {id: test, data_dir: "${DATA}"}
                admin: {listen: "127.0.0.1:0", metrics_require_token: true}
                http: {listen: "127.0.0.1:0"}
                rate_limits:
                  default: {rate: 50, burst: 100}
                  tenants:
                    acme: {rate: 5, burst: 10}
                destinations:
                  app: {type: http, url: "http://127.0.0.1:9/in"}
                  signed: {url: "http://127.0.0.1:9/signed", signing: {scheme: standard_webhooks, secret: "whsec_c2lnbmVkLWtleQ=="}}
                sources:
                  open: {tenant: acme, verify: {scheme: none}}
                """)) {
            // the dispatcher stays out of the way: rows keep the states the test gives them
            edge.backends().store().deliveries().setPaused("app", true, System.currentTimeMillis());
            InetSocketAddress admin = new InetSocketAddress("127.0.0.1", edge.server.adminAddress().getPort());
            String token = Files.readString(dir.resolve("admin.token")).strip();
            Map<String, String> auth = Map.of("Authorization", "Bearer " + token);
            Http.Response hook = edge.post("/hooks/open", Map.of("Content-Type", "application/json"), "{\"n\":1}");
            assertThat(hook.status()).isEqualTo(202);
            String hookId = JSON.readTree(hook.body()).get("id").asText();

            // 401 on every /v1 route without the token, and on /metrics (admin.metrics_require_token)
            for (String path : List.of("/v1/rate-limits", "/v1/tenants/acme/rate-limit", "/v1/audit", "/v1/hooks",
                    "/v1/hooks/" + hookId, "/v1/admission", "/metrics")) {
                Http.Response r = request(admin, "GET", path, Map.of("Authorization", "Bearer wrong-token-000000"), null);
                assertThat(r.status()).as(path).isEqualTo(401);
                spec.check("GET", path, r);
            }
            spec.checkUndescribed("Unauthorized", "GET /v1/nothing-here", request(admin, "GET", "/v1/nothing-here", Map.of(), null));

            // rate limits: get (config, default), put, get (override), list, delete, delete again
            spec.check("GET", "/v1/tenants/acme/rate-limit", request(admin, "GET", "/v1/tenants/acme/rate-limit", auth, null));
            spec.check("GET", "/v1/tenants/zed/rate-limit", request(admin, "GET", "/v1/tenants/zed/rate-limit", auth, null));
            Map<String, String> alice = Map.of("Authorization", "Bearer " + token, "X-Sluice-Actor", "alice");
            Http.Response put = request(admin, "PUT", "/v1/tenants/acme/rate-limit", alice,
                    "{\"rate\":0.5,\"burst\":2,\"bytes_per_second\":1000,\"burst_bytes\":2000,\"max_body_bytes\":500,"
                            + "\"max_queue\":5,\"max_queue_bytes\":5000}");
            assertThat(put.status()).isEqualTo(200);
            spec.check("PUT", "/v1/tenants/acme/rate-limit", put);
            spec.check("GET", "/v1/rate-limits", request(admin, "GET", "/v1/rate-limits", auth, null));
            spec.check("PUT", "/v1/tenants/acme/rate-limit", request(admin, "PUT", "/v1/tenants/acme/rate-limit", auth, "{\"rate\":1,\"burst\":0}"));
            spec.check("PUT", "/v1/tenants/acme/rate-limit", request(admin, "PUT", "/v1/tenants/acme/rate-limit", auth, "[]"));
            spec.check("PUT", "/v1/tenants/acme/rate-limit", request(admin, "PUT", "/v1/tenants/acme/rate-limit",
                    Map.of("Authorization", "Bearer " + token, "X-Sluice-Actor", "x".repeat(200)), "{\"rate\":1,\"burst\":1}"));
            spec.check("PUT", "/v1/tenants/a%41/rate-limit", request(admin, "PUT", "/v1/tenants/a%41/rate-limit", auth, "{\"rate\":1,\"burst\":1}"));
            spec.check("GET", "/v1/tenants/.dot/rate-limit", request(admin, "GET", "/v1/tenants/.dot/rate-limit", auth, null));
            spec.check("PUT", "/v1/tenants/acme/rate-limit", request(admin, "PUT", "/v1/tenants/acme/rate-limit", auth,
                    "{\"pad\":\"" + "x".repeat(70_000) + "\"}"));
            spec.check("DELETE", "/v1/tenants/acme/rate-limit", request(admin, "DELETE", "/v1/tenants/acme/rate-limit", alice, null));
            spec.check("DELETE", "/v1/tenants/acme/rate-limit", request(admin, "DELETE", "/v1/tenants/acme/rate-limit", auth, null));
            spec.check("DELETE", "/v1/tenants/a%41/rate-limit", request(admin, "DELETE", "/v1/tenants/a%41/rate-limit", auth, null));

            // audit (both records: put and delete), hooks, one hook, admission
            Http.Response audit = request(admin, "GET", "/v1/audit?limit=10", auth, null);
            assertThat(JSON.readTree(audit.body()).get("audit")).hasSize(2);
            spec.check("GET", "/v1/audit", audit);
            spec.check("GET", "/v1/audit", request(admin, "GET", "/v1/audit?limit=0", auth, null));
            spec.check("GET", "/v1/audit", request(admin, "GET", "/v1/audit?limit=%zz", auth, null));
            Http.Response page = request(admin, "GET", "/v1/hooks?limit=1", auth, null);
            assertThat(JSON.readTree(page.body()).get("hooks")).hasSize(1);
            spec.check("GET", "/v1/hooks", page);
            spec.check("GET", "/v1/hooks", request(admin, "GET", "/v1/hooks?after=" + hookId, auth, null));
            spec.check("GET", "/v1/hooks", request(admin, "GET", "/v1/hooks?after=nope", auth, null));
            spec.check("GET", "/v1/hooks", request(admin, "GET", "/v1/hooks?limit=x", auth, null));
            spec.check("GET", "/v1/hooks/" + hookId, request(admin, "GET", "/v1/hooks/" + hookId, auth, null));
            spec.check("GET", "/v1/hooks/nope", request(admin, "GET", "/v1/hooks/nope", auth, null));
            spec.check("GET", "/v1/admission", request(admin, "GET", "/v1/admission", auth, null));

            // delivery: destinations, pause/resume, a hook with deliveries, dead letters, redeliver, replays
            String deadId = DeliveryAdminTest.commit(edge, 1, "app").get(0);
            DeliveryAdminTest.kill(edge, deadId, "app");
            String pendingId = DeliveryAdminTest.commit(edge, 1, "app").get(0);
            spec.check("GET", "/v1/destinations", request(admin, "GET", "/v1/destinations", auth, null));
            spec.check("POST", "/v1/destinations/app/pause", request(admin, "POST", "/v1/destinations/app/pause", alice, null));
            spec.check("POST", "/v1/destinations/app/resume", request(admin, "POST", "/v1/destinations/app/resume", auth, null));
            spec.check("POST", "/v1/destinations/nope/pause", request(admin, "POST", "/v1/destinations/nope/pause", auth, null));
            spec.check("POST", "/v1/destinations/nope/resume", request(admin, "POST", "/v1/destinations/nope/resume", auth, null));
            spec.check("POST", "/v1/destinations/app/enable", request(admin, "POST", "/v1/destinations/app/enable", alice, null));
            spec.check("POST", "/v1/destinations/nope/enable", request(admin, "POST", "/v1/destinations/nope/enable", auth, null));
            spec.check("POST", "/v1/destinations/app/pause", request(admin, "POST", "/v1/destinations/app/pause",
                    Map.of("Authorization", "Bearer " + token, "X-Sluice-Actor", "x".repeat(200)), null));
            spec.check("POST", "/v1/destinations/app/resume", request(admin, "POST", "/v1/destinations/app/resume",
                    Map.of("Authorization", "Bearer " + token, "X-Sluice-Actor", "x".repeat(200)), null));
            spec.check("GET", "/v1/hooks/" + deadId, request(admin, "GET", "/v1/hooks/" + deadId, auth, null));
            spec.check("GET", "/v1/hooks/" + pendingId, request(admin, "GET", "/v1/hooks/" + pendingId, auth, null));
            spec.check("GET", "/v1/dead-letters", request(admin, "GET", "/v1/dead-letters?destination=app&limit=1", auth, null));
            spec.check("GET", "/v1/dead-letters", request(admin, "GET", "/v1/dead-letters?destination=nope", auth, null));
            spec.check("GET", "/v1/dead-letters", request(admin, "GET", "/v1/dead-letters?after=nope", auth, null));
            spec.check("POST", "/v1/hooks/" + deadId + "/redeliver", request(admin, "POST", "/v1/hooks/" + deadId + "/redeliver",
                    auth, "{\"destinations\":[\"app\"]}"));
            spec.check("POST", "/v1/hooks/" + deadId + "/redeliver", request(admin, "POST", "/v1/hooks/" + deadId + "/redeliver",
                    auth, "{\"destinations\":[\"nope\"]}"));
            spec.check("POST", "/v1/hooks/nope/redeliver", request(admin, "POST", "/v1/hooks/nope/redeliver", auth, null));
            spec.check("POST", "/v1/hooks/" + deadId + "/redeliver", request(admin, "POST", "/v1/hooks/" + deadId + "/redeliver",
                    auth, "[]"));
            DeliveryAdminTest.kill(edge, deadId, "app");
            String range = "{\"from\":\"2020-01-01T00:00:00Z\",\"to\":\"2100-01-01T00:00:00Z\",\"dead_only\":true,\"rate\":100";
            spec.check("POST", "/v1/destinations/app/replay", request(admin, "POST", "/v1/destinations/app/replay", auth,
                    range + "}")); // 409 force_required: wider than 31 days
            Http.Response replay = request(admin, "POST", "/v1/destinations/app/replay", alice, range + ",\"force\":true}");
            assertThat(replay.status()).as(replay.body()).isEqualTo(202);
            assertThat(JSON.readTree(replay.body()).get("scheduled").asInt()).isEqualTo(1);
            spec.check("POST", "/v1/destinations/app/replay", replay);
            spec.check("POST", "/v1/destinations/app/replay", request(admin, "POST", "/v1/destinations/app/replay", auth, "{}"));
            spec.check("POST", "/v1/destinations/nope/replay", request(admin, "POST", "/v1/destinations/nope/replay", auth, "{}"));
            String trial = "/v1/destinations/app/transform:test";
            spec.check("POST", trial, request(admin, "POST", trial, auth, "{\"body\":\"{}\"}")); // 409 no_transform
            spec.check("POST", "/v1/destinations/nope/transform:test",
                    request(admin, "POST", "/v1/destinations/nope/transform:test", auth, "{\"body\":\"{}\"}"));
            String replayId = JSON.readTree(replay.body()).get("replay").asText();
            spec.check("GET", "/v1/replays/" + replayId, request(admin, "GET", "/v1/replays/" + replayId, auth, null));
            spec.check("GET", "/v1/replays/nope", request(admin, "GET", "/v1/replays/nope", auth, null));
            Http.Response delivered = request(admin, "GET", "/v1/audit?limit=10", auth, null);
            assertThat(JSON.readTree(delivered.body()).get("audit").get(0).get("action").asText()).isEqualTo("replay");
            spec.check("GET", "/v1/audit", delivered);

            // signing keys: listed, rotated (audited without the secret), refused
            String keys = "/v1/destinations/signed/secrets";
            spec.check("GET", keys, request(admin, "GET", keys, auth, null));
            spec.check("GET", "/v1/destinations/app/secrets", request(admin, "GET", "/v1/destinations/app/secrets", auth, null));
            spec.check("GET", "/v1/destinations/nope/secrets", request(admin, "GET", "/v1/destinations/nope/secrets", auth, null));
            Http.Response rotated = request(admin, "POST", keys, alice, "{\"secret\":\"whsec_bmV4dC1rZXk=\",\"overlap_seconds\":60}");
            assertThat(rotated.status()).as(rotated.body()).isEqualTo(200);
            spec.check("POST", keys, rotated);
            spec.check("POST", keys, request(admin, "POST", keys, auth, "{\"secret\":\"whsec_bmV4dC1rZXk=\"}")); // 409 secret_in_use
            spec.check("POST", keys, request(admin, "POST", keys, auth, "{\"secret\":\"nope\"}"));
            spec.check("POST", keys, request(admin, "POST", keys, auth, "[]"));
            spec.check("POST", "/v1/destinations/nope/secrets", request(admin, "POST", "/v1/destinations/nope/secrets", auth, "{}"));
            Http.Response rotationAudit = request(admin, "GET", "/v1/audit?limit=1", auth, null);
            assertThat(JSON.readTree(rotationAudit.body()).get("audit").get(0).get("action").asText()).isEqualTo("rotate_secret");
            assertThat(rotationAudit.body()).doesNotContain("bmV4dC1rZXk");
            spec.check("GET", "/v1/audit", rotationAudit);

            // 404 and 405 outside the operations
            spec.checkUndescribed("NotFound", "GET /v1/nothing-here", request(admin, "GET", "/v1/nothing-here", auth, null));
            spec.checkUndescribed("NotFound", "GET /elsewhere", request(admin, "GET", "/elsewhere", auth, null));
            spec.checkUndescribed("NotFound", "GET /docs/nothing.js", request(admin, "GET", "/docs/nothing.js", Map.of(), null));
            for (String[] call : new String[][] {{"POST", "/v1/rate-limits"}, {"POST", "/v1/tenants/acme/rate-limit"},
                    {"DELETE", "/v1/audit"}, {"PUT", "/v1/hooks"}, {"DELETE", "/v1/hooks/" + hookId}, {"POST", "/v1/admission"},
                    {"POST", "/docs"}, {"DELETE", "/openapi/admin.yaml"}, {"POST", "/v1/destinations"},
                    {"GET", "/v1/destinations/app/pause"}, {"GET", "/v1/hooks/" + hookId + "/redeliver"},
                    {"POST", "/v1/dead-letters"}, {"DELETE", "/v1/replays/x"}, {"PUT", "/v1/destinations/signed/secrets"}}) {
                Http.Response r = request(admin, call[0], call[1], auth, call[0].equals("DELETE") ? null : "{}");
                assertThat(r.status()).as(call[0] + " " + call[1]).isEqualTo(405);
                assertThat(r.header("allow")).isNotBlank();
                spec.checkUndescribed("MethodNotAllowed", call[0] + " " + call[1], r);
            }

            // the listener's own routes: metrics with the token, the descriptions and /docs without one
            spec.check("GET", "/metrics", request(admin, "GET", "/metrics", auth, null));
            for (String path : List.of("/openapi/admin.yaml", "/openapi/ingest.yaml", "/docs")) {
                spec.check("GET", path, request(admin, "GET", path, Map.of(), null));
            }
        }
        assertThat(spec.exercised()).isEqualTo(spec.operations());
    }

    /** Found by the description: {@code /metrics} refused without the token but, unlike {@code /v1}, without a challenge. */
    @Test
    void metricsRefusedWithoutTheTokenCarriesWwwAuthenticate() {
        try (TestEdge edge = TestEdge.startWhole(dir, """
                node: {id: test, data_dir: "${DATA}"}
                admin: {listen: "127.0.0.1:0", metrics_require_token: true}
                http: {listen: "127.0.0.1:0"}
                sources:
                  open: {verify: {scheme: none}}
                """)) {
            InetSocketAddress admin = new InetSocketAddress("127.0.0.1", edge.server.adminAddress().getPort());
            Http.Response r = request(admin, "GET", "/metrics", Map.of(), null);
            assertThat(r.status()).isEqualTo(401);
            assertThat(r.header("www-authenticate")).isEqualTo("Bearer realm=\"sluice-admin\"");
        }
    }

    // ------------------------------------------------------------------ serving

    @Test
    void theAdminListenerServesTheDescriptionsAndTheReferenceWithoutTheToken() throws Exception {
        try (TestEdge edge = TestEdge.start(dir, """
                http: {listen: "127.0.0.1:0"}
                sources:
                  open: {verify: {scheme: none}}
                """)) {
            InetSocketAddress admin = new InetSocketAddress("127.0.0.1", edge.server.adminAddress().getPort());
            for (String name : List.of("ingest.yaml", "admin.yaml")) {
                Http.Response r = request(admin, "GET", "/openapi/" + name, Map.of(), null);
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.body()).isEqualTo(Files.readString(OpenApiDocument.DIR.resolve(name), StandardCharsets.UTF_8));
                assertThat(r.header("content-type")).startsWith("application/yaml");
                assertHardened(r);
            }
            Http.Response index = request(admin, "GET", "/docs", Map.of(), null);
            assertThat(index.status()).isEqualTo(200);
            assertThat(index.header("content-type")).startsWith("text/html");
            assertHardened(index);
            String csp = index.header("content-security-policy");
            assertThat(csp).contains("script-src 'self'").doesNotContain("unsafe-inline';  script").doesNotContain("unsafe-eval");
            assertThat(csp.split("script-src")[1].split(";")[0]).doesNotContain("unsafe-inline");
            assertThat(csp).contains("frame-ancestors 'none'");
            // no inline script: every <script> has a src; every script and stylesheet is served here
            assertThat(index.body()).doesNotContainPattern("<script(?![^>]*\\ssrc=)[^>]*>");
            Matcher assets = Pattern.compile("(?:src|href)=\"([^\"]+)\"").matcher(index.body());
            int count = 0;
            while (assets.find()) {
                String asset = assets.group(1);
                assertThat(asset).as("an asset of /docs is served by this listener").startsWith("/docs/");
                Http.Response r = request(admin, "GET", asset, Map.of(), null);
                assertThat(r.status()).as(asset).isEqualTo(200);
                assertThat(r.body()).as(asset).isNotEmpty();
                assertHardened(r);
                count++;
            }
            assertThat(count).isGreaterThanOrEqualTo(4);
            String init = request(admin, "GET", "/docs/sluice-docs.js", Map.of(), null).body();
            assertThat(init).contains("/openapi/admin.yaml").contains("/openapi/ingest.yaml").contains("validatorUrl: null");
            // the /v1 routes still need the token
            assertThat(request(admin, "GET", "/v1/rate-limits", Map.of(), null).status()).isEqualTo(401);
        }
    }

    private static void assertHardened(Http.Response r) {
        assertThat(r.header("content-security-policy")).startsWith("default-src 'none'");
        assertThat(r.header("x-frame-options")).isEqualTo("DENY");
        assertThat(r.header("referrer-policy")).isEqualTo("no-referrer");
        assertThat(r.header("x-content-type-options")).isEqualTo("nosniff");
    }

    // ------------------------------------------------------------------ helpers

    private static Http.Response request(InetSocketAddress at, String method, String target, Map<String, String> headers, String body) {
        try (Http http = Http.connect(at)) {
            return http.request(method, target, headers, body == null ? null : body.getBytes(StandardCharsets.UTF_8));
        }
    }

    /** Sends {@code bytes} on a new connection (from {@code from} when not null) and reads one answer; {@code expected} -1 for any. */
    private static Http.Response raw(InetSocketAddress at, InetAddress from, String bytes, int expected) {
        try (Http http = Http.connect(at, from)) {
            http.write(bytes);
            Http.Response r = http.read();
            if (expected >= 0) {
                assertThat(r.status()).as(bytes.length() > 120 ? bytes.substring(0, 120) : bytes).isEqualTo(expected);
            }
            return r;
        }
    }

    private static String hmac(String secret, String body) throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        return HexFormat.of().formatHex(mac.doFinal(body.getBytes(StandardCharsets.UTF_8)));
    }
}
