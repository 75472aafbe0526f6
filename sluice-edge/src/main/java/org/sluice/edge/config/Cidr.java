package org.sluice.edge.config;

import java.net.InetAddress;

/**
 * One IPv4 or IPv6 network, {@code 10.0.0.0/8} or {@code fd00::/8}. A bare address is
 * a network of one ({@code /32} or {@code /128}). An IPv4-mapped IPv6 network
 * ({@code ::ffff:10.0.0.0/104}) is the IPv4 network it maps, and an IPv4-mapped address
 * tested against it counts as IPv4, so one rule covers both spellings.
 *
 * <p>Held as two 64-bit halves (an IPv4 network in the low 32 bits of {@code lo}) and the
 * prefix length, so {@link #contains} is a few integer operations and allocates only what
 * {@link InetAddress#getAddress()} does.
 *
 * @param v4           an IPv4 network (including one written IPv4-mapped)
 * @param hi           the network's high 64 bits (0 for IPv4)
 * @param lo           the network's low 64 bits
 * @param prefixLength the network bits, 0 to 32 (IPv4) or 128
 */
public record Cidr(boolean v4, long hi, long lo, int prefixLength) {

    /** Refuses a prefix length out of range and a host bit set ({@link IllegalArgumentException}). */
    public Cidr {
        if (prefixLength < 0 || prefixLength > (v4 ? 32 : 128)) {
            throw new IllegalArgumentException("the prefix length must be a number from 0 to " + (v4 ? 32 : 128));
        }
        if ((hi & ~maskHi(v4, prefixLength)) != 0 || (lo & ~maskLo(v4, prefixLength)) != 0) {
            throw new IllegalArgumentException("host bits are set");
        }
    }

    /** The mask of the high half's network bits. */
    private static long maskHi(boolean v4, int prefixLength) {
        int shift = (v4 ? 32 : 128) - prefixLength; // host bits
        return v4 || shift >= 128 ? 0 : shift >= 64 ? -1L << (shift - 64) : -1L;
    }

    /** The mask of the low half's network bits. */
    private static long maskLo(boolean v4, int prefixLength) {
        int shift = (v4 ? 32 : 128) - prefixLength; // host bits
        if (v4) {
            return prefixLength == 0 ? 0 : (0xFFFF_FFFFL << shift) & 0xFFFF_FFFFL;
        }
        return shift >= 64 ? 0 : shift == 0 ? -1L : -1L << shift;
    }

    /**
     * Parses {@code address/prefix} or a bare address.
     *
     * @throws IllegalArgumentException with a message that completes "... is not a CIDR: ..." style reporting
     *                                  (no key path; the loader adds it)
     */
    public static Cidr parse(String text) {
        String s = text.trim();
        int slash = s.indexOf('/');
        String addressText = slash < 0 ? s : s.substring(0, slash);
        InetAddress raw = IpLiterals.parse(addressText);
        if (raw == null) {
            throw new IllegalArgumentException("\"" + addressText + "\" is not an IP address");
        }
        InetAddress address = IpLiterals.unmap(raw);
        boolean written6 = addressText.indexOf(':') >= 0;
        boolean mapped = written6 && address.getAddress().length == 4; // ::ffff:a.b.c.d
        int bits = written6 ? 128 : 32;
        int prefix = bits;
        if (slash >= 0) {
            String prefixText = s.substring(slash + 1);
            if (!prefixText.matches("[0-9]{1,3}") || Integer.parseInt(prefixText) > bits) {
                throw new IllegalArgumentException("the prefix length must be a number from 0 to " + bits);
            }
            prefix = Integer.parseInt(prefixText);
        }
        if (mapped) {
            if (prefix < 96) {
                throw new IllegalArgumentException("an IPv4-mapped network needs a prefix of at least 96");
            }
            prefix -= 96;
        }
        byte[] b = address.getAddress();
        boolean v4 = b.length == 4;
        long hi = 0;
        long lo = 0;
        if (v4) {
            lo = ipv4Bits(b, 0);
        } else {
            for (int i = 0; i < 8; i++) {
                hi = (hi << 8) | (b[i] & 0xFFL);
                lo = (lo << 8) | (b[i + 8] & 0xFFL);
            }
        }
        long maskHi = maskHi(v4, prefix);
        long maskLo = maskLo(v4, prefix);
        if ((hi & ~maskHi) != 0 || (lo & ~maskLo) != 0) {
            throw new IllegalArgumentException("host bits are set; the network is " + new Cidr(v4, hi & maskHi, lo & maskLo, prefix));
        }
        return new Cidr(v4, hi, lo, prefix);
    }

    /** True when {@code address} (IPv4-mapped IPv6 folded to IPv4) is in this network. */
    public boolean contains(InetAddress address) {
        long maskLo = maskLo(v4, prefixLength);
        byte[] b = address.getAddress();
        boolean mapped = b.length == 16 && IpLiterals.isV4Mapped(b);
        if (mapped || b.length == 4) {
            return v4 && (ipv4Bits(b, mapped ? 12 : 0) & maskLo) == lo;
        }
        if (v4) {
            return false;
        }
        long h = 0;
        long l = 0;
        for (int i = 0; i < 8; i++) {
            h = (h << 8) | (b[i] & 0xFFL);
            l = (l << 8) | (b[i + 8] & 0xFFL);
        }
        return (h & maskHi(v4, prefixLength)) == hi && (l & maskLo) == lo;
    }

    /** The IPv4 address in {@code b[at..at+3]}, as the low 32 bits of a long. */
    private static long ipv4Bits(byte[] b, int at) {
        return ((b[at] & 0xFFL) << 24) | ((b[at + 1] & 0xFFL) << 16) | ((b[at + 2] & 0xFFL) << 8) | (b[at + 3] & 0xFFL);
    }

    /** Canonical form: {@code 10.0.0.0/8}, {@code 2001:db8::/32} (the longest run of zero groups as {@code ::}). */
    @Override
    public String toString() {
        byte[] b;
        if (v4) {
            b = new byte[] {(byte) (lo >>> 24), (byte) (lo >>> 16), (byte) (lo >>> 8), (byte) lo};
        } else {
            b = new byte[16];
            for (int i = 0; i < 8; i++) {
                b[i] = (byte) (hi >>> (56 - 8 * i));
                b[i + 8] = (byte) (lo >>> (56 - 8 * i));
            }
        }
        try {
            InetAddress a = InetAddress.getByAddress(b);
            return (v4 ? a.getHostAddress() : compact(a)) + "/" + prefixLength;
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The JDK's IPv6 text with the longest run of zero groups collapsed to {@code ::}. */
    private static String compact(InetAddress a) {
        String full = a.getHostAddress();
        int pct = full.indexOf('%');
        if (pct >= 0) {
            full = full.substring(0, pct);
        }
        String[] groups = full.split(":", -1);
        int bestStart = -1;
        int bestLen = 0;
        for (int i = 0; i < groups.length; ) {
            if (groups[i].equals("0")) {
                int j = i;
                while (j < groups.length && groups[j].equals("0")) {
                    j++;
                }
                if (j - i > bestLen && j - i > 1) {
                    bestStart = i;
                    bestLen = j - i;
                }
                i = j;
            } else {
                i++;
            }
        }
        if (bestStart < 0) {
            return full;
        }
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < bestStart; i++) {
            sb.append(i > 0 ? ":" : "").append(groups[i]);
        }
        sb.append("::");
        for (int i = bestStart + bestLen; i < groups.length; i++) {
            sb.append(i > bestStart + bestLen ? ":" : "").append(groups[i]);
        }
        return sb.toString();
    }
}
