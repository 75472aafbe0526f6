package org.sluice.edge.admin;

import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.sluice.edge.config.IpLiterals;

/**
 * Which {@code Host} headers the admin listener answers ({@code admin.allowed_hosts}).
 *
 * <p>A page on another site can make a browser send requests to the admin listener through
 * DNS rebinding: its own name is made to resolve to 127.0.0.1, and the browser, which sees
 * one origin, lets the page read the answers. Such a request carries the page's name in
 * {@code Host}. The routes that need the token are safe from it (the page cannot know the
 * token), but {@code /metrics}, {@code /docs} and the console's files are not, so every
 * admin request is checked here first.
 *
 * <p>Allowed: no {@code Host} at all (HTTP/1.0), any IP literal (an address names no site
 * that could be rebound), {@code localhost}, the listen address's own host name, and the
 * names in {@code admin.allowed_hosts}; {@code "*"} there turns the check off. The port
 * and a trailing dot are ignored, and names compare without regard to case.
 */
final class AdminHosts {

    private final Set<String> names;
    private final boolean anyHost;

    AdminHosts(String listenHost, List<String> allowedHosts) {
        this.anyHost = allowedHosts.contains("*");
        this.names = Stream.concat(Stream.of("localhost", listenHost),
                        allowedHosts.stream())
                .map(AdminHosts::normalise)
                .collect(Collectors.toUnmodifiableSet());
    }

    /** True when a request with this {@code Host} header value (null: absent) may be answered. */
    boolean allows(String host) {
        if (host == null || anyHost) {
            return true;
        }
        String name = withoutPort(host.trim());
        if (name == null) {
            return false;
        }
        if (name.startsWith("[") && name.endsWith("]")) {
            return IpLiterals.parse(name.substring(1, name.length() - 1)) != null;
        }
        String normal = normalise(name);
        return IpLiterals.parse(normal) != null || names.contains(normal);
    }

    /** {@code host} without a {@code :port} suffix; null when the suffix is not a port. */
    private static String withoutPort(String host) {
        int colon;
        if (host.startsWith("[")) {
            int close = host.indexOf(']');
            if (close < 0 || close == host.length() - 1) {
                return close < 0 ? null : host;
            }
            colon = close + 1;
            if (host.charAt(colon) != ':') {
                return null;
            }
        } else {
            colon = host.indexOf(':');
            if (colon < 0) {
                return host;
            }
        }
        if (colon == host.length() - 1) {
            return null;
        }
        for (int i = colon + 1; i < host.length(); i++) {
            char c = host.charAt(i);
            if (c < '0' || c > '9') {
                return null; // not a port, or an IPv6 literal without its brackets
            }
        }
        return host.substring(0, colon);
    }

    private static String normalise(String name) {
        String lower = name.toLowerCase(Locale.ROOT);
        return lower.endsWith(".") ? lower.substring(0, lower.length() - 1) : lower;
    }
}
