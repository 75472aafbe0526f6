package org.sluice.edge.load;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * The run's counters and latency recorder. Counters only grow; a reader takes a
 * {@link Snapshot} and subtracts the previous one for a per-second view. Latency is recorded
 * in microseconds into an HdrHistogram {@link Recorder}, which the per-second sampler swaps
 * out for an interval histogram (recording never waits for the sampler).
 *
 * <p>Accounting: every request written to a connection ({@link #sent}) ends as exactly one
 * response status or one error (the connection closed or failed before its answer), so at
 * the end {@code sent == sum(statuses) + errors}. A request that was due but never written
 * (the pending queue was full, or the run ended first) is {@code not_sent}.
 */
final class LoadStats {

    /** The largest latency the histogram tracks: one hour, in microseconds. */
    static final long MAX_MICROS = 3_600_000_000L;

    final AtomicLong offered = new AtomicLong();
    final AtomicLong sent = new AtomicLong();
    final AtomicLong errors = new AtomicLong();
    final AtomicLong notSent = new AtomicLong();
    final AtomicLong duplicatesSent = new AtomicLong();
    final AtomicLong badSignaturesSent = new AtomicLong();
    final AtomicLong connectErrors = new AtomicLong();
    private final AtomicLongArray statuses = new AtomicLongArray(600);
    private final Map<String, LongAdder> scopes = new ConcurrentHashMap<>();
    private final Recorder recorder = new Recorder(MAX_MICROS, 3);

    /** A response arrived: its status, its 429 scope (or null) and its latency from the intended send time. */
    void response(int status, String scope, long latencyNanos) {
        statuses.incrementAndGet(status >= 100 && status < 600 ? status : 0);
        if (scope != null) {
            scopes.computeIfAbsent(scope, s -> new LongAdder()).increment();
        }
        recorder.recordValue(Math.min(MAX_MICROS, Math.max(0, latencyNanos / 1000)));
    }

    /** The latencies recorded since the previous call. */
    Histogram interval(Histogram recycle) {
        return recorder.getIntervalHistogram(recycle);
    }

    Snapshot snapshot() {
        Map<Integer, Long> byStatus = new TreeMap<>();
        for (int s = 0; s < statuses.length(); s++) {
            long n = statuses.get(s);
            if (n != 0) {
                byStatus.put(s, n);
            }
        }
        Map<String, Long> byScope = new TreeMap<>();
        scopes.forEach((k, v) -> byScope.put(k, v.sum()));
        return new Snapshot(offered.get(), sent.get(), errors.get(), notSent.get(), byStatus, byScope);
    }

    /** Counters at one moment. Status 0 counts answers with an impossible status code. */
    record Snapshot(long offered, long sent, long errors, long notSent, Map<Integer, Long> byStatus,
                    Map<String, Long> byScope) {

        long status(int code) {
            return byStatus.getOrDefault(code, 0L);
        }

        long responses() {
            return byStatus.values().stream().mapToLong(Long::longValue).sum();
        }

        /** 202 and 200 (duplicate): the edge has the hook. */
        long accepted() {
            return status(202) + status(200);
        }

        /** Every other answer. */
        long refused() {
            return responses() - accepted();
        }

        long scope(String s) {
            return byScope.getOrDefault(s, 0L);
        }
    }
}
