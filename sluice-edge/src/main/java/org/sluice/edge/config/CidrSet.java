package org.sluice.edge.config;

import java.net.InetAddress;
import java.util.List;

/**
 * {@code http.trusted_proxies}: the networks whose {@code X-Forwarded-For} is believed.
 * Immutable; {@link #contains} is safe from any thread. Lists are short (a handful of
 * proxy networks), so a linear scan beats anything cleverer.
 */
public final class CidrSet {

    private static final CidrSet EMPTY = new CidrSet(List.of());

    private final Cidr[] cidrs;

    private CidrSet(List<Cidr> cidrs) {
        this.cidrs = cidrs.toArray(new Cidr[0]);
    }

    public static CidrSet of(List<Cidr> cidrs) {
        return cidrs.isEmpty() ? EMPTY : new CidrSet(cidrs);
    }

    /** Parses each entry with {@link Cidr#parse}; throws on the first bad one. */
    public static CidrSet parse(String... entries) {
        return of(java.util.Arrays.stream(entries).map(Cidr::parse).toList());
    }

    public static CidrSet empty() {
        return EMPTY;
    }

    /** True when {@code address} (IPv4-mapped folded to IPv4) is in any of the networks. */
    public boolean contains(InetAddress address) {
        for (Cidr c : cidrs) {
            if (c.contains(address)) {
                return true;
            }
        }
        return false;
    }

    public boolean isEmpty() {
        return cidrs.length == 0;
    }

    public List<Cidr> cidrs() {
        return List.of(cidrs);
    }

    @Override
    public String toString() {
        return cidrs().toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CidrSet s && java.util.Arrays.equals(s.cidrs, cidrs);
    }

    @Override
    public int hashCode() {
        return java.util.Arrays.hashCode(cidrs);
    }
}
