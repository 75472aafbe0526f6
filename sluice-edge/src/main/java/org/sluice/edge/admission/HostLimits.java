package org.sluice.edge.admission;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.Arrays;
import java.util.HashMap;
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
public final class HostLimits implements PreReadLimits {

    private final Limit perIp;
    private final Limit node;
    private final SharedGcraTable addresses;
    private final SharedGcraTable buckets;
    private final Map<String, SourceBytes> sources;
    private static final byte[] NODE_KEY = "node".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private record SourceBytes(byte[] key, Limit limit) {
    }

    public HostLimits(HostArena arena, Optional<Limit> perIp, Optional<Limit> node, Map<String, Long> sourceBytesPerSecond) {
        this.perIp = perIp.orElse(null);
        this.node = node.orElse(null);
        this.addresses = arena.addresses();
        this.buckets = arena.preRead();
        Map<String, SourceBytes> bySource = new HashMap<>();
        sourceBytesPerSecond.forEach((id, bps) -> bySource.put(id, new SourceBytes(
                ("source/" + id).getBytes(java.nio.charset.StandardCharsets.UTF_8), Limit.of(1, 1).withBytesPerSecond(bps))));
        this.sources = Map.copyOf(bySource);
    }

    @Override
    public long chargeAddress(InetAddress client, long now) {
        if (perIp == null) {
            return 0L;
        }
        byte[] raw = client.getAddress();
        byte[] key = client instanceof Inet4Address ? raw : Arrays.copyOf(raw, 8);
        return addresses.tryCharge(key, perIp.intervalNanos(), perIp.toleranceNanos(), now);
    }

    @Override
    public long addressWait(InetAddress client, long now) {
        if (perIp == null) {
            return 0L;
        }
        byte[] raw = client.getAddress();
        byte[] key = client instanceof Inet4Address ? raw : Arrays.copyOf(raw, 8);
        return addresses.waitNanos(key, perIp.intervalNanos(), perIp.toleranceNanos(), now);
    }

    @Override
    public long chargeNode(long now) {
        return node == null ? 0L : buckets.tryCharge(NODE_KEY, node.intervalNanos(), node.toleranceNanos(), now);
    }

    @Override
    public long chargeSourceBytes(String source, long bytes, long now) {
        SourceBytes s = sources.get(source);
        if (s == null || bytes <= 0) {
            return 0L;
        }
        return buckets.tryCharge(s.key(), s.limit().byteIncrementNanos(bytes), s.limit().byteToleranceNanos(), now);
    }

    @Override
    public long sourceBytesWait(String source, long bytes, long now) {
        SourceBytes s = sources.get(source);
        if (s == null || bytes <= 0) {
            return 0L;
        }
        return buckets.waitNanos(s.key(), s.limit().byteIncrementNanos(bytes), s.limit().byteToleranceNanos(), now);
    }
}
