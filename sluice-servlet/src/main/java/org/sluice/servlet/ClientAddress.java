package org.sluice.servlet;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;

/**
 * The client address of a request behind trusted proxies. {@code X-Forwarded-For} is only
 * believed when the peer is a trusted proxy; then its entries are walked from the right
 * (the hop nearest to us, written by our own proxy) and the first address that is not a
 * trusted proxy is the client. An entry that is not an address literal stops the walk at
 * the hop before it. Nothing here resolves a name.
 *
 * <p>It reads strings, not a servlet request, so that other HTTP stacks (the Spring Boot
 * starter's WebFlux filter) apply the same rule: {@link RequestKey#clientAddress(List)} is
 * its use in a servlet container. Immutable and thread-safe.
 */
public final class ClientAddress {

    private final List<Cidr> trusted;

    /**
     * @param trustedProxies CIDRs such as {@code 10.0.0.0/8} or {@code ::1/128}, or single addresses
     * @throws IllegalArgumentException naming the entry when one is not an address or CIDR
     */
    public ClientAddress(List<String> trustedProxies) {
        List<Cidr> cidrs = new ArrayList<>(trustedProxies.size());
        for (String entry : trustedProxies) {
            cidrs.add(Cidr.parse(entry));
        }
        this.trusted = List.copyOf(cidrs);
    }

    /**
     * The client's address, given the {@code peer}'s (the socket's remote address, as text)
     * and the request's {@code X-Forwarded-For} header values (each may hold several
     * comma-separated entries; the values in the order they arrived).
     */
    public String of(String peer, Iterable<String> forwardedFor) {
        InetAddress hop = Cidr.literal(peer);
        if (hop == null || !trusted(hop)) {
            return peer;
        }
        List<String> entries = entries(forwardedFor);
        String client = peer;
        for (int i = entries.size() - 1; i >= 0; i--) {
            InetAddress address = Cidr.literal(entries.get(i));
            if (address == null) {
                return client;
            }
            client = address.getHostAddress();
            if (!trusted(address)) {
                return client;
            }
        }
        return client;
    }

    private boolean trusted(InetAddress address) {
        for (Cidr cidr : trusted) {
            if (cidr.contains(address)) {
                return true;
            }
        }
        return false;
    }

    private static List<String> entries(Iterable<String> values) {
        List<String> entries = new ArrayList<>();
        for (String value : values) {
            for (String entry : value.split(",", -1)) {
                entries.add(entry.trim());
            }
        }
        return entries;
    }

    /** An address block: {@code prefix} leading bits of {@code network}. */
    static final class Cidr {

        private final byte[] network;
        private final int prefix;

        private Cidr(byte[] network, int prefix) {
            this.network = network;
            this.prefix = prefix;
        }

        static Cidr parse(String text) {
            int slash = text.indexOf('/');
            InetAddress address = literal(slash < 0 ? text : text.substring(0, slash));
            if (address == null) {
                throw new IllegalArgumentException("trusted proxy must be an address or CIDR, got " + text);
            }
            int bits = address.getAddress().length * 8;
            int prefix = bits;
            if (slash >= 0) {
                try {
                    prefix = Integer.parseInt(text.substring(slash + 1));
                } catch (NumberFormatException e) {
                    prefix = -1;
                }
                if (prefix < 0 || prefix > bits) {
                    throw new IllegalArgumentException("trusted proxy prefix must be 0 to " + bits + ", got " + text);
                }
            }
            return new Cidr(address.getAddress(), prefix);
        }

        boolean contains(InetAddress address) {
            byte[] bytes = address.getAddress();
            if (bytes.length != network.length) {
                return false;
            }
            int full = prefix / 8;
            for (int i = 0; i < full; i++) {
                if (bytes[i] != network[i]) {
                    return false;
                }
            }
            int rest = prefix % 8;
            if (rest == 0) {
                return true;
            }
            int mask = 0xff << (8 - rest);
            return (bytes[full] & mask) == (network[full] & mask);
        }

        /** {@code text} as an IPv4 or IPv6 literal (brackets allowed), or null; never a name lookup. */
        static InetAddress literal(String text) {
            String s = text.startsWith("[") && text.endsWith("]") ? text.substring(1, text.length() - 1) : text;
            if (s.isEmpty() || !isLiteralShape(s)) {
                return null;
            }
            try {
                return InetAddress.getByName(s);
            } catch (UnknownHostException e) {
                return null;
            }
        }

        private static boolean isLiteralShape(String s) {
            boolean v6 = s.indexOf(':') >= 0;
            int dots = 0;
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                if (c == '.') {
                    dots++;
                } else if (!((c >= '0' && c <= '9') || (v6 && (c == ':' || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))))) {
                    return false;
                }
            }
            return v6 || dots == 3;
        }
    }
}
