package org.sluice.edge.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code http.tls}: the ingest listener speaks HTTPS with a PEM certificate and key (JDK TLS). */
class TlsTest {

    @TempDir
    Path dir;

    private SelfSigned selfSigned() throws Exception {
        return SelfSigned.in(dir);
    }

    @Test
    void ingestOverTls() throws Exception {
        SelfSigned tls = selfSigned();
        try (TestEdge edge = TestEdge.start(dir, """
                http: {listen: "127.0.0.1:0", tls: {cert_file: "%s", key_file: "%s"}}
                sources:
                  a: {verify: {scheme: none}}
                """.formatted(tls.certFile(), tls.keyFile()))) {
            HttpClient client = HttpClient.newBuilder().sslContext(tls.client()).version(HttpClient.Version.HTTP_1_1).build();
            HttpResponse<String> r = client.send(HttpRequest.newBuilder(
                    URI.create("https://127.0.0.1:" + edge.address.getPort() + "/hooks/a"))
                    .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(202);
            assertThat(r.body()).contains("\"status\":\"accepted\"");
        }
    }

    /** The lingering close over TLS ({@code refused_body: close}): the 429 still arrives whole, then close_notify. */
    @Test
    void aRefusedBodyOverTlsGetsItsWhole429ThenACleanEnd() throws Exception {
        SelfSigned tls = selfSigned();
        try (TestEdge edge = TestEdge.start(dir, """
                http: {listen: "127.0.0.1:0", refused_body: close, tls: {cert_file: "%s", key_file: "%s"}}
                rate_limits:
                  per_ip: {rate: 1, burst: 1}
                sources:
                  a: {verify: {scheme: none}}
                """.formatted(tls.certFile(), tls.keyFile()))) {
            String kib = "x".repeat(1024);
            for (int i = 0; i < 2; i++) {
                SSLSocket socket = (SSLSocket) tls.client().getSocketFactory().createSocket();
                socket.connect(edge.address, 5_000);
                try (Http http = Http.over(socket)) {
                    http.write("POST /hooks/a HTTP/1.1\r\nHost: t\r\nContent-Length: 1024\r\n\r\n" + kib);
                    Http.Response r = http.read();
                    if (i == 0) {
                        assertThat(r.status()).isEqualTo(202); // the burst of one
                        continue;
                    }
                    assertThat(r.status()).isEqualTo(429);
                    assertThat(r.body()).isEqualTo("{\"error\":\"rate_limited\",\"scope\":\"ip\",\"retry_after_ms\":1000}");
                    assertThat(r.header("connection")).isEqualTo("close");
                    assertThat(http.endOfStream()).isTrue();
                }
            }
        }
    }

    /** The default {@code close_if_incomplete} over TLS: a body decrypted with its headers keeps the connection. */
    @Test
    void aRefusedWholeBodyOverTlsKeepsTheConnection() throws Exception {
        SelfSigned tls = selfSigned();
        try (TestEdge edge = TestEdge.start(dir, """
                http: {listen: "127.0.0.1:0", tls: {cert_file: "%s", key_file: "%s"}}
                rate_limits:
                  per_ip: {rate: 1, burst: 1}
                sources:
                  a: {verify: {scheme: none}}
                """.formatted(tls.certFile(), tls.keyFile()))) {
            String request = "POST /hooks/a HTTP/1.1\r\nHost: t\r\nContent-Length: 1024\r\n\r\n" + "x".repeat(1024);
            SSLSocket socket = (SSLSocket) tls.client().getSocketFactory().createSocket();
            socket.connect(edge.address, 5_000);
            try (Http http = Http.over(socket)) {
                http.write(request);
                assertThat(http.read().status()).isEqualTo(202); // the burst of one
                for (int i = 0; i < 2; i++) {
                    http.write(request); // one write: one TLS record, headers and body together
                    Http.Response r = http.read();
                    assertThat(r.status()).isEqualTo(429);
                    assertThat(r.header("connection")).isNull();
                }
                assertThat(http.request("GET", "/healthz", java.util.Map.of(), null).status()).isEqualTo(200);
            }
        }
    }

    /**
     * {@code http.max_connections_per_ip} over TLS: the refusal is written as the connection
     * opens and leaves once the handshake is done; the client reads the whole 503, then a
     * clean end.
     */
    @Test
    void aConnectionOverTheCapPerAddressOverTlsGetsItsWhole503ThenACleanEnd() throws Exception {
        SelfSigned tls = selfSigned();
        try (TestEdge edge = TestEdge.start(dir, """
                http: {listen: "127.0.0.1:0", max_connections_per_ip: 1, tls: {cert_file: "%s", key_file: "%s"}}
                sources:
                  a: {verify: {scheme: none}}
                """.formatted(tls.certFile(), tls.keyFile()))) {
            SSLSocket first = (SSLSocket) tls.client().getSocketFactory().createSocket();
            first.connect(edge.address, 5_000);
            try (Http held = Http.over(first)) {
                assertThat(held.request("GET", "/healthz", java.util.Map.of(), null).status()).isEqualTo(200);
                SSLSocket second = (SSLSocket) tls.client().getSocketFactory().createSocket();
                second.connect(edge.address, 5_000);
                try (Http refused = Http.over(second)) {
                    second.startHandshake();
                    Http.Response r = refused.read();
                    assertThat(r.status()).isEqualTo(503);
                    assertThat(r.body()).isEqualTo("{\"error\":\"overload\"}");
                    assertThat(r.header("connection")).isEqualTo("close");
                    assertThat(refused.endOfStream()).isTrue();
                }
            }
        }
    }
}
