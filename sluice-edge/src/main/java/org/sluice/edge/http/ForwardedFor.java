package org.sluice.edge.http;

import io.netty.util.NetUtil;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.function.Predicate;
import org.sluice.edge.config.IpLiterals;

/**
 * Finds the client's address behind trusted proxies: pure, no DNS, no allocation beyond
 * the parsed address.
 *
 * <p>The peer is the client unless it is a trusted proxy. Then {@code X-Forwarded-For}
 * (every header line, joined in order, entries separated by commas) is walked from the
 * right: each entry that is itself a trusted proxy is skipped, and the first that is not
 * is the client. An entry that cannot be read as an address, met before the client is
 * found, makes the whole header invalid: falling back to the proxy's own address would
 * let one malformed header put every client behind that proxy into one bucket. When every
 * entry is a trusted proxy the leftmost is the client; with no header at all, the peer.
 *
 * <p>Entry forms: {@code 1.2.3.4}, {@code 1.2.3.4:port}, {@code ::1}, {@code [::1]},
 * {@code [::1]:port}. An IPv4-mapped IPv6 address comes back as the IPv4 address.
 */
final class ForwardedFor {

    /** What {@link #resolve} found: the client, or null with {@code invalid} set. */
    record Result(InetAddress client, boolean invalid) {
        static final Result INVALID = new Result(null, true);
    }

    private ForwardedFor() {
    }

    static Result resolve(InetAddress peer, List<String> headerLines, Predicate<InetAddress> trusted) {
        InetAddress normalPeer = IpLiterals.unmap(peer);
        if (headerLines.isEmpty() || !trusted.test(normalPeer)) {
            return new Result(normalPeer, false);
        }
        String joined = headerLines.size() == 1 ? headerLines.get(0) : String.join(",", headerLines);
        if (joined.isBlank()) {
            return new Result(normalPeer, false);
        }
        String[] entries = joined.split(",", -1);
        InetAddress leftmost = normalPeer;
        for (int i = entries.length - 1; i >= 0; i--) {
            InetAddress address = parse(entries[i].trim());
            if (address == null) {
                return Result.INVALID;
            }
            if (!trusted.test(address)) {
                return new Result(address, false);
            }
            leftmost = address;
        }
        return new Result(leftmost, false);
    }

    /** One entry as an address, or null when it is not one (no name lookups, ever). */
    static InetAddress parse(String entry) {
        String host = entry;
        if (host.startsWith("[")) {
            int close = host.indexOf(']');
            if (close < 0) {
                return null;
            }
            String rest = host.substring(close + 1);
            if (!rest.isEmpty() && !validPort(rest)) {
                return null;
            }
            host = host.substring(1, close);
            if (!NetUtil.isValidIpV6Address(host)) {
                return null;
            }
        } else {
            int colon = host.indexOf(':');
            if (colon >= 0 && host.indexOf(':', colon + 1) < 0) { // exactly one colon: v4:port
                if (!validPort(host.substring(colon))) {
                    return null;
                }
                host = host.substring(0, colon);
                if (!NetUtil.isValidIpV4Address(host)) {
                    return null;
                }
            }
        }
        byte[] bytes = NetUtil.createByteArrayFromIpAddressString(host);
        if (bytes == null) {
            return null;
        }
        try {
            return IpLiterals.unmap(InetAddress.getByAddress(bytes));
        } catch (UnknownHostException e) {
            return null;
        }
    }

    private static boolean validPort(String colonAndPort) {
        if (colonAndPort.length() < 2 || colonAndPort.length() > 6 || colonAndPort.charAt(0) != ':') {
            return false;
        }
        int port = 0;
        for (int i = 1; i < colonAndPort.length(); i++) {
            char c = colonAndPort.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
            port = port * 10 + (c - '0');
        }
        return port <= 65535;
    }
}
