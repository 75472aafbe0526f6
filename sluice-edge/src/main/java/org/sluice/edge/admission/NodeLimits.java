package org.sluice.edge.admission;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.sluice.core.AddressTable;
import org.sluice.core.BucketTable;
import org.sluice.core.Gcra;
import org.sluice.core.Limit;

/**
 * {@link PreReadLimits} in this node's memory: a fixed-memory {@link AddressTable} for
 * {@code rate_limits.per_ip}, and one small {@link BucketTable} holding the node's bucket
 * and one byte bucket per configured source. Absent limits admit everything. The source
 * keys are a fixed set (the configured sources), so this table never grows with traffic.
 */
public final class NodeLimits implements PreReadLimits {

    private static final String NODE_KEY = "node";

    private final Limit perIp;
    private final Limit node;
    private final AddressTable addresses;
    private final BucketTable buckets = new BucketTable(64);
    private final Map<String, SourceBytes> sources;

    /** One source's byte bucket: its key in {@link #buckets} and its policy. */
    private record SourceBytes(String key, Limit limit) {
    }

    /** @param sourceBytesPerSecond byte ceiling by source id */
    public NodeLimits(Optional<Limit> perIp, Optional<Limit> node, Map<String, Long> sourceBytesPerSecond) {
        this.perIp = perIp.orElse(null);
        this.node = node.orElse(null);
        this.addresses = this.perIp == null ? null : new AddressTable();
        Map<String, SourceBytes> bySource = new HashMap<>();
        sourceBytesPerSecond.forEach((id, bps) -> bySource.put(id,
                new SourceBytes("source/" + id, Limit.of(1, 1).withBytesPerSecond(bps))));
        this.sources = Map.copyOf(bySource);
    }

    @Override
    public long chargeAddress(InetAddress client, long now) {
        return perIp == null ? 0L : addresses.tryCharge(client, perIp, now);
    }

    /** The bucket's debt read as {@link #sourceBytesWait} reads it, then a charge's arithmetic. */
    @Override
    public long addressWait(InetAddress client, long now) {
        if (perIp == null) {
            return 0L;
        }
        long tolerance = perIp.toleranceNanos();
        long debt = tolerance - (long) addresses.remaining(client, 1L, tolerance, now);
        return Gcra.waitNanos(now + debt, now, perIp.intervalNanos(), tolerance);
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

    /**
     * The bucket's room read in nanoseconds ({@code remaining} with an interval of 1 ns is
     * {@code tolerance - debt}, exact while it is below 2^53 ns, i.e. 104 days of burst),
     * then the same arithmetic a charge runs.
     */
    @Override
    public long sourceBytesWait(String source, long bytes, long now) {
        SourceBytes s = sources.get(source);
        if (s == null || bytes <= 0) {
            return 0L;
        }
        long tolerance = s.limit().byteToleranceNanos();
        long debt = tolerance - (long) buckets.remaining(s.key(), 1L, tolerance, now);
        return Gcra.waitNanos(now + debt, now, s.limit().byteIncrementNanos(bytes), tolerance);
    }

    /**
     * For {@code GET /v1/admission}: {@code per_ip} (fixed memory, so nothing is swept;
     * rows are the address groups in debt now, found by a scan) and {@code node} (the node
     * bucket and the sources' byte buckets).
     */
    public List<TableReading> tables(long now) {
        List<TableReading> tables = new ArrayList<>(2);
        if (addresses != null) {
            tables.add(new TableReading("per_ip", addresses.occupied(now), 0));
        }
        tables.add(new TableReading("node", buckets.size(), buckets.swept()));
        return tables;
    }

    /** One limiter table's reading: its name, the rows it holds now, the rows its sweeps have deleted. */
    public record TableReading(String name, long rows, long swept) {
    }
}
