package org.sluice.edge.delivery.nats;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyManagementException;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.Optional;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLContextSpi;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLServerSocketFactory;
import javax.net.ssl.SSLSessionContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;

/**
 * The TLS context of a NATS connection: it trusts the destination's {@code ca_file} (or what
 * the JVM's default context trusts without one) and verifies the server's host name.
 *
 * <p>The NATS client takes an {@link SSLContext} only and makes its TLS socket from the
 * context's socket factory without asking for endpoint identification, so with a plain
 * context any certificate a trusted CA issued, for any name, was accepted (issue 46, point 3).
 * The context made here hands out a socket factory that sets the endpoint identification
 * algorithm {@code HTTPS} on every socket before its handshake: the JDK then checks the
 * certificate's subject alternative names against the host (name or IP address) of the
 * server URL, as it does for an {@code https} destination.
 */
final class NatsTls {

    private NatsTls() {
    }

    /**
     * A client context that trusts {@code caFile}'s PEM certificates (empty: whatever the
     * JVM's default context trusts, as before) and verifies host names.
     *
     * @throws GeneralSecurityException when the file holds no certificate or the JDK has no TLS
     */
    static SSLContext verifyingContext(Optional<Path> caFile) throws GeneralSecurityException, IOException {
        if (caFile.isEmpty()) {
            return new VerifyingContext(SSLContext.getDefault());
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trustStore(caFile.get()));
        SSLContext inner = SSLContext.getInstance("TLS");
        inner.init(null, tmf.getTrustManagers(), null);
        return new VerifyingContext(inner);
    }

    private static KeyStore trustStore(Path pem) throws GeneralSecurityException, IOException {
        KeyStore ks = KeyStore.getInstance(KeyStore.getDefaultType());
        ks.load(null, null);
        int n = 0;
        try (InputStream in = Files.newInputStream(pem)) {
            for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                ks.setCertificateEntry("ca-" + n++, c);
            }
        }
        if (n == 0) {
            throw new GeneralSecurityException("no PEM certificate in " + pem);
        }
        return ks;
    }

    /** {@code inner} in all but its socket factory, which verifies host names. */
    private static final class VerifyingContext extends SSLContext {
        VerifyingContext(SSLContext inner) {
            super(new Spi(inner), inner.getProvider(), inner.getProtocol());
        }
    }

    /*
     * Every method but the socket factory's and the engines' forwards to inner: the SPI has no
     * default to inherit and Java no delegation, so the list below repeats one line a method.
     * The duplicates tool pairs it by shape with other forwarding classes (the store's facade,
     * NatsWireHeaders); they share the language's shape, not logic to unify.
     */
    private static final class Spi extends SSLContextSpi {
        private final SSLContext inner;
        private final SSLSocketFactory sockets;

        Spi(SSLContext inner) {
            this.inner = inner;
            this.sockets = new VerifyingSocketFactory(inner.getSocketFactory());
        }

        @Override
        protected void engineInit(KeyManager[] km, TrustManager[] tm, SecureRandom sr) throws KeyManagementException {
            throw new KeyManagementException("already initialised");
        }

        @Override
        protected SSLSocketFactory engineGetSocketFactory() {
            return sockets;
        }

        @Override
        protected SSLServerSocketFactory engineGetServerSocketFactory() {
            return inner.getServerSocketFactory();
        }

        @Override
        protected SSLEngine engineCreateSSLEngine() { // without a host, no certificate passes the check
            SSLEngine e = inner.createSSLEngine();
            e.setSSLParameters(verifying(e.getSSLParameters()));
            return e;
        }

        @Override
        protected SSLEngine engineCreateSSLEngine(String host, int port) {
            SSLEngine e = inner.createSSLEngine(host, port);
            e.setSSLParameters(verifying(e.getSSLParameters()));
            return e;
        }

        @Override
        protected SSLParameters engineGetDefaultSSLParameters() {
            return verifying(inner.getDefaultSSLParameters());
        }

        @Override
        protected SSLParameters engineGetSupportedSSLParameters() {
            return inner.getSupportedSSLParameters();
        }

        @Override
        protected SSLSessionContext engineGetServerSessionContext() {
            return inner.getServerSessionContext();
        }

        @Override
        protected SSLSessionContext engineGetClientSessionContext() {
            return inner.getClientSessionContext();
        }
    }

    private static SSLParameters verifying(SSLParameters p) {
        p.setEndpointIdentificationAlgorithm("HTTPS");
        return p;
    }

    /** Every socket it makes verifies the server's host name in its handshake. */
    private static final class VerifyingSocketFactory extends SSLSocketFactory {
        private final SSLSocketFactory inner;

        VerifyingSocketFactory(SSLSocketFactory inner) {
            this.inner = inner;
        }

        private static Socket verifying(Socket s) {
            if (s instanceof SSLSocket ssl) {
                ssl.setSSLParameters(NatsTls.verifying(ssl.getSSLParameters()));
            }
            return s;
        }

        @Override
        public String[] getDefaultCipherSuites() {
            return inner.getDefaultCipherSuites();
        }

        @Override
        public String[] getSupportedCipherSuites() {
            return inner.getSupportedCipherSuites();
        }

        @Override
        public Socket createSocket(Socket s, String host, int port, boolean autoClose) throws IOException {
            return verifying(inner.createSocket(s, host, port, autoClose));
        }

        @Override
        public Socket createSocket() throws IOException {
            return verifying(inner.createSocket());
        }

        @Override
        public Socket createSocket(String host, int port) throws IOException {
            return verifying(inner.createSocket(host, port));
        }

        @Override
        public Socket createSocket(String host, int port, InetAddress localHost, int localPort) throws IOException {
            return verifying(inner.createSocket(host, port, localHost, localPort));
        }

        @Override
        public Socket createSocket(InetAddress host, int port) throws IOException {
            return verifying(inner.createSocket(host, port));
        }

        @Override
        public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort)
                throws IOException {
            return verifying(inner.createSocket(address, port, localAddress, localPort));
        }

        @Override
        public Socket createSocket(Socket s, InputStream consumed, boolean autoClose) throws IOException {
            return verifying(inner.createSocket(s, consumed, autoClose));
        }
    }
}
