package org.sluice.edge.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.util.Base64;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code http.tls}: the ingest listener speaks HTTPS with a PEM certificate and key (JDK TLS). */
class TlsTest {

    @TempDir
    Path dir;

    @Test
    void ingestOverTls() throws Exception {
        // a self-signed certificate from the JDK's own keytool, written out as PEM
        Path keystore = dir.resolve("ks.p12");
        Process keytool = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-alias", "edge", "-keyalg", "RSA", "-keysize", "2048", "-dname", "CN=localhost",
                "-ext", "SAN=ip:127.0.0.1", "-validity", "2", "-storetype", "PKCS12", "-keystore", keystore.toString(),
                "-storepass", "changeit", "-keypass", "changeit").redirectErrorStream(true).start();
        keytool.getInputStream().readAllBytes();
        assertThat(keytool.waitFor()).isZero();
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (var in = Files.newInputStream(keystore)) {
            ks.load(in, "changeit".toCharArray());
        }
        Certificate cert = ks.getCertificate("edge");
        Path certFile = Files.writeString(dir.resolve("cert.pem"), pem("CERTIFICATE", cert.getEncoded()));
        Path keyFile = Files.writeString(dir.resolve("key.pem"),
                pem("PRIVATE KEY", ks.getKey("edge", "changeit".toCharArray()).getEncoded()));

        try (TestEdge edge = TestEdge.start(dir, """
                http: {listen: "127.0.0.1:0", tls: {cert_file: "%s", key_file: "%s"}}
                sources:
                  a: {verify: {scheme: none}}
                """.formatted(certFile, keyFile))) {
            KeyStore trust = KeyStore.getInstance("PKCS12");
            trust.load(null, null);
            trust.setCertificateEntry("edge", cert);
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(trust);
            SSLContext ssl = SSLContext.getInstance("TLS");
            ssl.init(null, tmf.getTrustManagers(), null);
            HttpClient client = HttpClient.newBuilder().sslContext(ssl).version(HttpClient.Version.HTTP_1_1).build();
            HttpResponse<String> r = client.send(HttpRequest.newBuilder(
                    URI.create("https://127.0.0.1:" + edge.address.getPort() + "/hooks/a"))
                    .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(202);
            assertThat(r.body()).contains("\"status\":\"accepted\"");
        }
    }

    static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }
}
