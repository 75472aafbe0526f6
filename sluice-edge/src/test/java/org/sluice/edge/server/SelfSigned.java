package org.sluice.edge.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.util.Base64;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A self-signed certificate from the JDK's own keytool, for 127.0.0.1 unless another name is
 * asked for, written out as the PEM files {@code http.tls} and {@code admin.tls} (and a
 * {@code nats-server --tls}) take, and a client context trusting it (which checks no name).
 */
public record SelfSigned(Path certFile, Path keyFile, SSLContext client) {

    /** For 127.0.0.1 ({@code CN=localhost}), as {@code cert.pem} and {@code key.pem} in {@code dir}. */
    public static SelfSigned in(Path dir) throws Exception {
        return in(dir, "edge", "localhost", "ip:127.0.0.1");
    }

    /**
     * For {@code cn} with subject alternative names {@code san} (keytool's form:
     * {@code dns:host.test} or {@code ip:127.0.0.1}), as {@code <alias>.pem} and
     * {@code <alias>.key} in {@code dir}.
     */
    public static SelfSigned in(Path dir, String alias, String cn, String san) throws Exception {
        Path keystore = dir.resolve(alias + ".p12");
        Process keytool = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-alias", alias, "-keyalg", "RSA", "-keysize", "2048", "-dname", "CN=" + cn,
                "-ext", "SAN=" + san, "-validity", "2", "-storetype", "PKCS12", "-keystore", keystore.toString(),
                "-storepass", "changeit", "-keypass", "changeit").redirectErrorStream(true).start();
        keytool.getInputStream().readAllBytes();
        assertThat(keytool.waitFor()).isZero();
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (var in = Files.newInputStream(keystore)) {
            ks.load(in, "changeit".toCharArray());
        }
        Certificate cert = ks.getCertificate(alias);
        boolean plain = alias.equals("edge");
        Path certFile = Files.writeString(dir.resolve(plain ? "cert.pem" : alias + ".pem"), pem("CERTIFICATE", cert.getEncoded()));
        Path keyFile = Files.writeString(dir.resolve(plain ? "key.pem" : alias + ".key"),
                pem("PRIVATE KEY", ks.getKey(alias, "changeit".toCharArray()).getEncoded()));
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("edge", cert);
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext ssl = SSLContext.getInstance("TLS");
        ssl.init(null, tmf.getTrustManagers(), null);
        return new SelfSigned(certFile, keyFile, ssl);
    }

    static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }
}
