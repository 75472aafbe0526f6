package org.sluice.edge.admission;

import java.net.InetAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.sluice.core.Limit;

/**
 * What {@link NodeLimits} and {@link HostLimits} share: the policies ({@code rate_limits.per_ip},
 * {@code rate_limits.node}, each source's bytes per second), when each bucket is charged at
 * all, and which key and arithmetic each charge uses. A subclass says only where its buckets
 * live: a bucket keyed {@code K} charged or read ({@link #tryCharge}, {@link #waitNanos}),
 * and the address buckets, which each keeps its own way.
 *
 * @param <K> a bucket's key in the subclass's table
 */
abstract sealed class PreReadBuckets<K> implements PreReadLimits permits NodeLimits, HostLimits {

    private final Limit perIp;
    private final Limit node;
    private final K nodeKey;
    private final Map<String, SourceBytes<K>> sources;

    /** One source's byte bucket: its key and its policy. */
    private record SourceBytes<K>(K key, Limit limit) {
    }

    /** @param key a bucket's key from its name ({@code node}, {@code source/<id>}) */
    PreReadBuckets(Optional<Limit> perIp, Optional<Limit> node, Map<String, Long> sourceBytesPerSecond,
                   Function<String, K> key) {
        this.perIp = perIp.orElse(null);
        this.node = node.orElse(null);
        this.nodeKey = key.apply("node");
        Map<String, SourceBytes<K>> bySource = new HashMap<>();
        sourceBytesPerSecond.forEach((id, bps) -> bySource.put(id,
                new SourceBytes<>(key.apply("source/" + id), Limit.of(1, 1).withBytesPerSecond(bps))));
        this.sources = Map.copyOf(bySource);
    }

    /** One charge of {@code increment} against the bucket {@code key}: 0, or the wait (nothing charged). */
    abstract long tryCharge(K key, long increment, long tolerance, long now);

    /** What {@link #tryCharge} would answer now, charging nothing. */
    abstract long waitNanos(K key, long increment, long tolerance, long now);

    /** One hook against {@code client}'s bucket under {@code perIp}. */
    abstract long chargeAddress(InetAddress client, Limit perIp, long now);

    /** What {@link #chargeAddress(InetAddress, Limit, long)} would answer now, charging nothing. */
    abstract long addressWait(InetAddress client, Limit perIp, long now);

    @Override
    public final long chargeAddress(InetAddress client, long now) {
        return perIp == null ? 0L : chargeAddress(client, perIp, now);
    }

    @Override
    public final long addressWait(InetAddress client, long now) {
        return perIp == null ? 0L : addressWait(client, perIp, now);
    }

    @Override
    public final long chargeNode(long now) {
        return node == null ? 0L : tryCharge(nodeKey, node.intervalNanos(), node.toleranceNanos(), now);
    }

    @Override
    public final long chargeSourceBytes(String source, long bytes, long now) {
        SourceBytes<K> s = bucketFor(source, bytes);
        return s == null ? 0L : tryCharge(s.key(), s.limit().byteIncrementNanos(bytes), s.limit().byteToleranceNanos(), now);
    }

    @Override
    public final long sourceBytesWait(String source, long bytes, long now) {
        SourceBytes<K> s = bucketFor(source, bytes);
        return s == null ? 0L : waitNanos(s.key(), s.limit().byteIncrementNanos(bytes), s.limit().byteToleranceNanos(), now);
    }

    /** The byte bucket {@code bytes} of {@code source} go through, or null when it has none or there are no bytes. */
    private SourceBytes<K> bucketFor(String source, long bytes) {
        return bytes <= 0 ? null : sources.get(source);
    }
}
