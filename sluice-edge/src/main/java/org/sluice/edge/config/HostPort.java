package org.sluice.edge.config;

import java.net.InetSocketAddress;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A listen address, {@code host:port}. The host is an IPv4 literal, a bracketed IPv6
 * literal ({@code [::1]:9090}) or a host name; port 0 asks the OS for a free port.
 *
 * @param host the host without brackets ({@code ::1}, {@code 127.0.0.1}, {@code localhost})
 * @param port 0 to 65535
 */
public record HostPort(String host, int port) {

    private static final Pattern HOST_NAME = Pattern.compile(
            "[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*");

    public HostPort {
        Objects.requireNonNull(host, "host");
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port must be between 0 and 65535, got " + port);
        }
    }

    /** True when {@code text} is a DNS host name (labels of letters, digits and inner hyphens). */
    public static boolean isHostName(String text) {
        return text.length() <= 253 && HOST_NAME.matcher(text).matches();
    }

    /**
     * Parses {@code host:port} or {@code [v6]:port}.
     *
     * @throws IllegalArgumentException with a message that completes "must be ..." (no key path)
     */
    public static HostPort parse(String text) {
        String host;
        String portText;
        if (text.startsWith("[")) {
            int close = text.indexOf(']');
            if (close < 0 || close + 1 >= text.length() || text.charAt(close + 1) != ':') {
                throw new IllegalArgumentException("a bracketed IPv6 address must be followed by :port");
            }
            host = text.substring(1, close);
            portText = text.substring(close + 2);
            if (IpLiterals.parse(host) == null || !host.contains(":")) {
                throw new IllegalArgumentException("\"" + host + "\" is not an IPv6 address");
            }
        } else {
            int colon = text.lastIndexOf(':');
            if (colon < 0) {
                throw new IllegalArgumentException("the port is missing");
            }
            host = text.substring(0, colon);
            portText = text.substring(colon + 1);
            if (host.contains(":")) {
                throw new IllegalArgumentException("an IPv6 address must be written in brackets, e.g. [::1]:8080");
            }
            if (host.isEmpty()) {
                throw new IllegalArgumentException("the host is missing (use 0.0.0.0 for every interface)");
            }
            if (!isHostName(host)) {
                throw new IllegalArgumentException("\"" + host + "\" is not a host name or address");
            }
            if (host.matches("[0-9.]+") && IpLiterals.parse(host) == null) {
                throw new IllegalArgumentException("\"" + host + "\" is not an IPv4 address");
            }
        }
        if (!portText.matches("[0-9]{1,5}") || Integer.parseInt(portText) > 65535) {
            throw new IllegalArgumentException("the port must be a number from 0 to 65535");
        }
        return new HostPort(host, Integer.parseInt(portText));
    }

    /** An address to bind; a host name is resolved here. */
    public InetSocketAddress socketAddress() {
        return new InetSocketAddress(host, port);
    }

    /** {@code host:port}, with brackets around an IPv6 host. */
    @Override
    public String toString() {
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }
}
