package org.sluice.edge.server;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;
import org.sluice.edge.cli.LimitsCommand;
import picocli.CommandLine;

/**
 * The admin listener under hostile or careless clients: its connection cap, its read and
 * idle timeouts, its own executor (apart from the ingest workers), the boot warning for a
 * listener off loopback without TLS, counted authentication failures, and TLS for the CLI.
 */
class AdminListenerTest {

    /** Generous: the timeouts under test are 1 s or less, on a loaded two-core machine. */
    private static final long SLACK_MS = 15_000;

    @TempDir
    Path dir;

    private final Logger adminLog = (Logger) LoggerFactory.getLogger(AdminServer.class);
    private final ListAppender<ILoggingEvent> logged = new ListAppender<>();

    @BeforeEach
    void captureLogs() {
        logged.start();
        adminLog.addAppender(logged);
    }

    @AfterEach
    void releaseLogs() {
        adminLog.detachAppender(logged);
    }

    private TestEdge start(String admin) {
        return TestEdge.startWhole(dir, """
                node: {id: test, data_dir: "${DATA}"}
                admin: %s
                http: {listen: "127.0.0.1:0"}
                rate_limits:
                  tenants:
                    acme: {rate: 5, burst: 10}
                sources:
                  open: {tenant: acme, verify: {scheme: none}}
                """.formatted(admin));
    }

    private static InetSocketAddress admin(TestEdge edge) {
        return new InetSocketAddress("127.0.0.1", edge.server.adminAddress().getPort());
    }

    private List<String> warnings() {
        return logged.list.stream().filter(e -> e.getLevel() == Level.WARN).map(ILoggingEvent::getFormattedMessage).toList();
    }

    // ------------------------------------------------------------------ connection cap

    @Test
    void aConnectionOverAdminMaxConnectionsIsClosedUnserved() {
        try (TestEdge edge = start("{listen: \"127.0.0.1:0\", max_connections: 2}");
             Http first = Http.connect(admin(edge));
             Http second = Http.connect(admin(edge))) {
            assertThat(first.request("GET", "/metrics", Map.of(), null).status()).isEqualTo(200);
            assertThat(second.request("GET", "/metrics", Map.of(), null).status()).isEqualTo(200);

            try (Http third = Http.connect(admin(edge))) {
                assertThat(third.endOfStream()).as("closed on accept (a socket timeout fails instead)").isTrue();
            }

            assertThat(second.request("GET", "/metrics", Map.of(), null).body())
                    .contains("sluice_admin_connections_refused_total 1.0");

            first.close();
            TestEdge.await(() -> {
                try (Http again = Http.connect(admin(edge))) {
                    again.write("GET /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n");
                    return !again.closedByServer(); // a byte of an answer: served once a slot is free
                }
            });
        }
    }

    // ------------------------------------------------------------------ timeouts

    @Test
    void aSlowlorisTricklingHeadersIsCutAfterTheReadTimeout() throws Exception {
        try (TestEdge edge = start("{listen: \"127.0.0.1:0\", read_timeout_ms: 1000, idle_timeout_ms: 600000}");
             Socket socket = new Socket()) {
            socket.connect(admin(edge), 5_000);
            socket.setSoTimeout(100);
            InputStream in = socket.getInputStream();
            long started = System.nanoTime();
            socket.getOutputStream().write("GET /metrics HTTP/1.1\r\n".getBytes(StandardCharsets.ISO_8859_1));
            boolean closed = false;
            for (int i = 0; !closed && elapsedMs(started) < 1_000 + SLACK_MS; i++) {
                try {
                    socket.getOutputStream().write(("X-Slow-" + i + ": 1\r\n").getBytes(StandardCharsets.ISO_8859_1));
                    closed = in.read() < 0;
                } catch (SocketTimeoutException stillOpen) {
                    // nothing yet: trickle another header
                } catch (IOException reset) {
                    closed = true;
                }
            }
            assertThat(closed).as("closed within read_timeout_ms + %d ms of slack", SLACK_MS).isTrue();
        }
    }

    @Test
    void aHeadersCompleteButBodyStalledRequestIsAnswered408() {
        try (TestEdge edge = start("{listen: \"127.0.0.1:0\", read_timeout_ms: 500, idle_timeout_ms: 600000}");
             Http http = Http.connect(admin(edge))) {
            http.write("PUT /v1/tenants/acme/rate-limit HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100\r\n\r\n{\"rate\"");
            Http.Response r = http.read(); // the socket's own read timeout (20 s) is the slack
            assertThat(r.status()).isEqualTo(408);
            assertThat(r.body()).isEqualTo("{\"error\":\"request_timeout\"}");
            assertThat(http.closedByServer()).isTrue();
        }
    }

    @Test
    void anIdleConnectionIsClosedAfterTheIdleTimeoutAndAServedOneToo() {
        try (TestEdge edge = start("{listen: \"127.0.0.1:0\", read_timeout_ms: 600000, idle_timeout_ms: 500}");
             Http silent = Http.connect(admin(edge));
             Http served = Http.connect(admin(edge))) {
            assertThat(served.request("GET", "/metrics", Map.of(), null).status()).isEqualTo(200);
            assertThat(silent.endOfStream()).as("never sent a byte (a socket timeout fails instead)").isTrue();
            assertThat(served.endOfStream()).as("kept alive, then idle").isTrue();
        }
    }

    // ------------------------------------------------------------------ its own executor

    @Test
    void adminRequestsAreAnsweredWhileEveryIngestWorkerIsHeld() throws Exception {
        try (TestEdge edge = start("{listen: \"127.0.0.1:0\", workers: 1}")) {
            CountDownLatch release = edge.holdIngestWorkers();
            try {
                String token = java.nio.file.Files.readString(dir.resolve("admin.token")).strip();
                HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
                String base = "http://127.0.0.1:" + admin(edge).getPort();
                for (String path : new String[] {"/metrics", "/v1/tenants/acme/rate-limit", "/v1/admission"}) {
                    HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create(base + path))
                            .header("Authorization", "Bearer " + token).timeout(Duration.ofSeconds(30)).build(),
                            HttpResponse.BodyHandlers.ofString());
                    assertThat(r.statusCode()).as(path).isEqualTo(200);
                }
                assertThat(release.getCount()).as("answered while the ingest workers were still held").isEqualTo(1);
            } finally {
                release.countDown();
            }
        }
    }

    // ------------------------------------------------------------------ boot warning, failed authentication

    @Test
    void aListenerOffLoopbackWithoutTlsWarnsAtBoot() throws Exception {
        try (TestEdge edge = start("{listen: \"0.0.0.0:0\"}")) {
            assertThat(warnings()).anySatisfy(w -> assertThat(w)
                    .contains("admin.listen 0.0.0.0:0 is not a loopback address and admin.tls is not set"));
        }
        logged.list.clear();
        try (TestEdge edge = start("{listen: \"127.0.0.1:0\"}")) {
            assertThat(warnings()).isEmpty();
        }
        SelfSigned tls = SelfSigned.in(dir);
        try (TestEdge edge = start("{listen: \"0.0.0.0:0\", tls: {cert_file: \"%s\", key_file: \"%s\"}}"
                .formatted(tls.certFile(), tls.keyFile()))) {
            assertThat(warnings()).isEmpty();
        }
    }

    @Test
    void failedAuthenticationsAreCountedAndLoggedRateLimited() {
        try (TestEdge edge = start("{listen: \"127.0.0.1:0\"}");
             Http http = Http.connect(admin(edge))) {
            assertThat(http.request("GET", "/v1/rate-limits", Map.of(), null).status()).isEqualTo(401);
            assertThat(http.request("GET", "/v1/rate-limits", Map.of("Authorization", "Bearer wrong-token-0000000"), null)
                    .status()).isEqualTo(401);
            assertThat(http.request("PUT", "/v1/tenants/acme/rate-limit", Map.of(), "{}".getBytes()).status())
                    .isEqualTo(401);

            assertThat(http.request("GET", "/metrics", Map.of(), null).body())
                    .contains("sluice_admin_auth_failures_total 3.0");
            assertThat(warnings()).as("three failures within the interval: one warning").hasSize(1);
            assertThat(warnings().get(0)).contains("without the right bearer token");
        }
    }

    // ------------------------------------------------------------------ TLS and the CLI

    @Test
    void theCliReachesAnAdminListenerWithTlsTrustingItsCertificate() throws Exception {
        SelfSigned tls = SelfSigned.in(dir);
        try (TestEdge edge = start("{listen: \"127.0.0.1:0\", tls: {cert_file: \"%s\", key_file: \"%s\"}}"
                .formatted(tls.certFile(), tls.keyFile()))) {
            String url = "https://127.0.0.1:" + admin(edge).getPort();
            StringWriter out = new StringWriter();
            CommandLine trusted = new CommandLine(new LimitsCommand().environment(Map.of())).setOut(new PrintWriter(out));
            assertThat(trusted.execute("get", "acme", "--admin", url, "--data-dir", dir.toString(),
                    "--ca", tls.certFile().toString())).isEqualTo(0);
            assertThat(out.toString()).contains("acme");

            StringWriter err = new StringWriter();
            CommandLine untrusted = new CommandLine(new LimitsCommand().environment(Map.of())).setErr(new PrintWriter(err));
            assertThat(untrusted.execute("get", "acme", "--admin", url, "--data-dir", dir.toString()))
                    .as("the JDK's trust store does not know a self-signed certificate").isEqualTo(3);

            try (Http plain = Http.connect(admin(edge))) {
                plain.write("GET /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n");
                assertThat(plain.closedByServer()).as("plain HTTP on a TLS listener gets no answer").isTrue();
            }
        }
    }

    private static long elapsedMs(long startedNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedNanos);
    }
}
