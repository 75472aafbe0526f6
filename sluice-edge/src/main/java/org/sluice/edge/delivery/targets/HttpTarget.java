package org.sluice.edge.delivery.targets;

import java.net.URI;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * A {@code type: http} destination's target (the default type): an HTTP(S) endpoint that
 * attempts are POSTed to (validated by the {@code delivery.http} room's reader). Whether
 * attempts are signed is for the destination's {@code OutboundHeaders}, which hold the signer.
 *
 * @param url     where attempts are POSTed, {@code http} or {@code https}
 * @param caFile  PEM certificates trusted for {@code https} instead of the JDK's; empty: the JDK's
 */
public record HttpTarget(URI url, Optional<Path> caFile) implements Target {

    public HttpTarget {
        Objects.requireNonNull(url, "url");
        Objects.requireNonNull(caFile, "caFile");
    }

    /** An endpoint without a CA file. */
    public HttpTarget(URI url) {
        this(url, Optional.empty());
    }

    @Override
    public Kind kind() {
        return Kind.HTTP;
    }

    /** The URL's user info (and password), if it has any. */
    @Override
    public java.util.List<String> secrets() {
        return Target.userInfoSecrets(url.toString());
    }

    /** True for an {@code https} URL: attempts need TLS. */
    public boolean https() {
        return "https".equalsIgnoreCase(url.getScheme());
    }

    /** The URL only. */
    @Override
    public String toString() {
        return url.toString();
    }
}
