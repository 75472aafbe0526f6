package org.sluice.edge.load;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;

/**
 * The summary of a run, as the {@code --json} document and the report's table. Keys:
 * {@code sent}, {@code offered}, {@code status} (count per HTTP status; 202, 200, 401, 429
 * and 503 always present), {@code refused_by_scope} (429s by the body's {@code scope}, or its
 * {@code error} when it has no scope, e.g. {@code tenant_overload}), {@code errors},
 * {@code not_sent}, {@code duplicates_sent}, {@code bad_signatures_sent},
 * {@code connect_errors}, {@code latency_ms} ({@code p50}, {@code p90}, {@code p99},
 * {@code p999}, {@code max}, from the intended send time), {@code duration_s} (from the first
 * intended send to the end of the drain), {@code offered_rate} ({@code --rate}) and
 * {@code achieved_rate} (answers per second of {@code duration_s}).
 */
public final class LoadSummary {

    static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private LoadSummary() {
    }

    static Map<String, Object> of(LoadOptions options, LoadStats stats, LoadStats.Snapshot c, Histogram latency, long elapsedNanos) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("sent", c.sent());
        m.put("offered", c.offered());
        Map<String, Long> status = new TreeMap<>();
        for (int s : new int[] {200, 202, 401, 429, 503}) {
            status.put(Integer.toString(s), 0L);
        }
        c.byStatus().forEach((k, v) -> status.put(Integer.toString(k), v));
        m.put("status", status);
        m.put("refused_by_scope", new TreeMap<>(c.byScope()));
        m.put("errors", c.errors());
        m.put("not_sent", c.notSent());
        m.put("duplicates_sent", stats.duplicatesSent.get());
        m.put("bad_signatures_sent", stats.badSignaturesSent.get());
        m.put("connect_errors", stats.connectErrors.get());
        Map<String, Object> lat = new LinkedHashMap<>();
        lat.put("p50", millis(latency, 50));
        lat.put("p90", millis(latency, 90));
        lat.put("p99", millis(latency, 99));
        lat.put("p999", millis(latency, 99.9));
        lat.put("max", latency.getTotalCount() == 0 ? 0.0 : round(latency.getMaxValue() / 1000.0));
        m.put("latency_ms", lat);
        double seconds = elapsedNanos / 1e9;
        m.put("duration_s", round(seconds));
        m.put("offered_rate", options.rate());
        m.put("achieved_rate", round(seconds <= 0 ? 0 : c.responses() / seconds));
        return m;
    }

    /** The summary as indented JSON. */
    public static String toJson(Map<String, Object> summary) {
        try {
            return JSON.writeValueAsString(summary);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static double millis(Histogram h, double percentile) {
        return h.getTotalCount() == 0 ? 0.0 : round(h.getValueAtPercentile(percentile) / 1000.0);
    }

    private static double round(double v) {
        return Math.round(v * 1000.0) / 1000.0;
    }
}
