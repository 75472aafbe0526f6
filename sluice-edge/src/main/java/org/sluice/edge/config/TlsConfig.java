package org.sluice.edge.config;

import java.nio.file.Path;
import java.util.Objects;

/**
 * {@code http.tls:} TLS on the ingest listener, and {@code admin.tls} (the same keys) on the
 * admin listener. Both files are PEM; the loader checks that they exist and are readable.
 *
 * @param certFile {@code cert_file}: the certificate chain
 * @param keyFile  {@code key_file}: the private key (PKCS#8)
 */
public record TlsConfig(Path certFile, Path keyFile) {

    public TlsConfig {
        Objects.requireNonNull(certFile, "certFile");
        Objects.requireNonNull(keyFile, "keyFile");
    }
}
