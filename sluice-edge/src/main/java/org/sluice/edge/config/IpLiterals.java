package org.sluice.edge.config;

import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * Parses IP address literals without ever touching DNS, and folds IPv4-mapped IPv6
 * addresses ({@code ::ffff:a.b.c.d}) onto their IPv4 address. Shared by the config
 * ({@code trusted_proxies}, {@code Cidr}) and the HTTP layer ({@code X-Forwarded-For} entries).
 */
public final class IpLiterals {

    private IpLiterals() {
    }

    /**
     * The address written in {@code text} (dotted IPv4, or IPv6 without brackets), or null
     * when it is not an IP literal. Never performs a name lookup.
     */
    public static InetAddress parse(String text) {
        if (text == null || text.isEmpty() || text.length() > 64) {
            return null;
        }
        byte[] v4 = parseV4(text);
        if (v4 != null) {
            return byAddress(v4);
        }
        if (text.indexOf(':') < 0 || text.indexOf('%') >= 0) {
            return null;
        }
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            boolean ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || c == ':' || c == '.';
            if (!ok) {
                return null;
            }
        }
        try {
            // Brackets make the JDK treat the text as an IPv6 literal and refuse, rather than look it up.
            return unmap(InetAddress.getByName("[" + text + "]"));
        } catch (UnknownHostException e) {
            return null;
        }
    }

    /** {@code ::ffff:a.b.c.d} as the IPv4 address {@code a.b.c.d}; any other address unchanged. */
    public static InetAddress unmap(InetAddress address) {
        byte[] b = address.getAddress();
        if (b.length != 16 || !isV4Mapped(b)) {
            return address;
        }
        return byAddress(new byte[] {b[12], b[13], b[14], b[15]});
    }

    /**
     * True when the 16 bytes of an IPv6 address are an IPv4-mapped one: ten zero bytes, two
     * {@code 0xff} bytes, then the IPv4 address. The one copy of the rule.
     */
    public static boolean isV4Mapped(byte[] ipv6) {
        for (int i = 0; i < 10; i++) {
            if (ipv6[i] != 0) {
                return false;
            }
        }
        return ipv6[10] == (byte) 0xff && ipv6[11] == (byte) 0xff;
    }

    private static byte[] parseV4(String text) {
        byte[] out = new byte[4];
        int part = 0;
        int value = -1;
        int digits = 0;
        for (int i = 0; i <= text.length(); i++) {
            char c = i < text.length() ? text.charAt(i) : '.';
            if (c >= '0' && c <= '9') {
                if (digits > 0 && value == 0) {
                    return null; // no leading zeros: 010 is ambiguous (octal to some parsers)
                }
                value = (value < 0 ? 0 : value * 10) + (c - '0');
                if (++digits > 3 || value > 255) {
                    return null;
                }
            } else if (c == '.') {
                if (digits == 0 || part == 4) {
                    return null;
                }
                out[part++] = (byte) value;
                value = -1;
                digits = 0;
            } else {
                return null;
            }
        }
        return part == 4 ? out : null;
    }

    private static InetAddress byAddress(byte[] bytes) {
        try {
            return InetAddress.getByAddress(bytes);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e); // only thrown for a wrong length
        }
    }
}
