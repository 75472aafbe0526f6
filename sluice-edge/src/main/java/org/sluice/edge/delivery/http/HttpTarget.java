package org.sluice.edge.delivery.http;

import java.net.URI;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;
import org.sluice.edge.delivery.SecretRedactor;
import org.sluice.edge.delivery.Target;
import org.sluice.edge.delivery.WebhookSigner;

/**
 * A {@code type: http} destination's target (the default type): an HTTP(S) endpoint that
 * attempts are POSTed to (validated by {@link HttpReader}).
 *
 * @param url     where attempts are POSTed, {@code http} or {@code https}
 * @param caFile  PEM certificates trusted for {@code https} instead of the JDK's; empty: the JDK's
 * @param signer  the Standard Webhooks signer; empty: attempts are not signed (its
 *                {@code webhook-signature} is written by the destination's {@code OutboundHeaders})
 */
public record HttpTarget(URI url, Optional<Path> caFile, Optional<WebhookSigner> signer) implements Target {

    public static final String TYPE = "http";

    public HttpTarget {
        Objects.requireNonNull(url, "url");
        Objects.requireNonNull(caFile, "caFile");
        Objects.requireNonNull(signer, "signer");
    }

    /** An endpoint without a CA file or signer. */
    public HttpTarget(URI url) {
        this(url, Optional.empty(), Optional.empty());
    }

    @Override
    public String type() {
        return TYPE;
    }

    @Override
    public <R> R accept(Cases<R> cases) {
        return cases.http(this);
    }

    /** The URL's user info (and password), if it has any: {@link SecretRedactor} masks them. */
    @Override
    public java.util.List<String> secrets() {
        return SecretRedactor.userInfoSecrets(url.toString());
    }

    /** True for an {@code https} URL: attempts need TLS. */
    public boolean https() {
        return "https".equalsIgnoreCase(url.getScheme());
    }

    /** The URL only: never the signing secret. */
    @Override
    public String toString() {
        return url.toString();
    }
}
