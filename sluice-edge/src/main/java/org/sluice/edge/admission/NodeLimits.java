package org.sluice.edge.admission;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
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
public final class NodeLimits extends PreReadBuckets<String> {

    private final AddressTable addresses;
    private final BucketTable buckets = new BucketTable(64);

    /** @param sourceBytesPerSecond byte ceiling by source id */
    public NodeLimits(Optional<Limit> perIp, Optional<Limit> node, Map<String, Long> sourceBytesPerSecond) {
        super(perIp, node, sourceBytesPerSecond, Function.identity());
        this.addresses = perIp.isPresent() ? new AddressTable() : null;
    }

    @Override
    long tryCharge(String key, long increment, long tolerance, long now) {
        return buckets.tryCharge(key, increment, tolerance, now);
    }

    /**
     * The bucket's room read in nanoseconds ({@code remaining} with an interval of 1 ns is
     * {@code tolerance - debt}, exact while it is below 2^53 ns, i.e. 104 days of burst),
     * then the same arithmetic a charge runs.
     */
    @Override
    long waitNanos(String key, long increment, long tolerance, long now) {
        long debt = tolerance - (long) buckets.remaining(key, 1L, tolerance, now);
        return Gcra.waitNanos(now + debt, now, increment, tolerance);
    }

    @Override
    long chargeAddress(InetAddress client, Limit perIp, long now) {
        return addresses.tryCharge(client, perIp, now);
    }

    /** The bucket's debt read as {@link #waitNanos} reads it, then a charge's arithmetic. */
    @Override
    long addressWait(InetAddress client, Limit perIp, long now) {
        long tolerance = perIp.toleranceNanos();
        long debt = tolerance - (long) addresses.remaining(client, 1L, tolerance, now);
        return Gcra.waitNanos(now + debt, now, perIp.intervalNanos(), tolerance);
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
