package org.sluice.edge.admission;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import org.sluice.core.Limit;
import org.sluice.shm.SharedGcraTable;

/**
 * {@link PreReadLimits} for {@code rate_limits.scope: host}: the same buckets as
 * {@link NodeLimits} (per client address, the node, each source's bytes) kept in the
 * host's shared arena, so every Sluice process on the host charges one set of buckets.
 * Keys and policies match {@link NodeLimits}: an address is its 4 bytes (IPv4) or its
 * first 8 bytes (the IPv6 /64). Lock-free and allocation-light: one key array per IPv6
 * address charge, none for the node or sources.
 */
public final class HostLimits extends PreReadBuckets<byte[]> {

    private final SharedGcraTable addresses;
    private final SharedGcraTable buckets;

    public HostLimits(HostArena arena, Optional<Limit> perIp, Optional<Limit> node, Map<String, Long> sourceBytesPerSecond) {
        super(perIp, node, sourceBytesPerSecond, name -> name.getBytes(StandardCharsets.UTF_8));
        this.addresses = arena.addresses();
        this.buckets = arena.preRead();
    }

    @Override
    long tryCharge(byte[] key, long increment, long tolerance, long now) {
        return buckets.tryCharge(key, increment, tolerance, now);
    }

    @Override
    long waitNanos(byte[] key, long increment, long tolerance, long now) {
        return buckets.waitNanos(key, increment, tolerance, now);
    }

    @Override
    long chargeAddress(InetAddress client, Limit perIp, long now) {
        return addresses.tryCharge(addressKey(client), perIp.intervalNanos(), perIp.toleranceNanos(), now);
    }

    @Override
    long addressWait(InetAddress client, Limit perIp, long now) {
        return addresses.waitNanos(addressKey(client), perIp.intervalNanos(), perIp.toleranceNanos(), now);
    }

    /** An IPv4 address's 4 bytes, or an IPv6 address's /64. */
    private static byte[] addressKey(InetAddress client) {
        byte[] raw = client.getAddress();
        return client instanceof Inet4Address ? raw : Arrays.copyOf(raw, 8);
    }
}
