package org.sluice.edge.admin;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
import org.sluice.edge.config.SourceConfig;
import org.sluice.edge.stats.StatsRing;

/**
 * The read-only routes the console's pages need besides the ones the CLI uses:
 * {@code GET /v1/stats/timeseries}, {@code GET /v1/sources} and {@code GET /v1/status}
 * (shapes in docs/admin-api.md). Holds no mutable state; every answer is built per request.
 */
final class ConsoleData {

    private final StatsRing stats;
    private final List<SourceConfig> sources;
    private final Supplier<Status> status;

    /**
     * What {@code GET /v1/status} reports.
     *
     * @param notReadyReason null while {@code /readyz} answers 200, else its reason
     * @param storeBytes     the store's size ({@code sluice_store_bytes}' figure), -1 when unknown
     */
    record Status(String notReadyReason, long storeBytes) {
    }

    ConsoleData(StatsRing stats, List<SourceConfig> sources, Supplier<Status> status) {
        this.stats = Objects.requireNonNull(stats, "stats");
        this.sources = List.copyOf(sources);
        this.status = Objects.requireNonNull(status, "status");
    }

    /** {@code seconds} as given in the query, or null for the default; the answer, or a 400. */
    AdminResponse timeseries(String seconds) {
        int n = StatsRing.SECONDS;
        if (seconds != null) {
            n = parseSeconds(seconds);
            if (n < 0) {
                String shown = seconds.length() <= 80 ? seconds : seconds.substring(0, 80) + "...";
                return AdminResponse.json(400, AdminJson.error("invalid_seconds",
                        "seconds must be an integer from 1 to " + StatsRing.SECONDS + ", got \"" + shown + "\""));
            }
        }
        long end = stats.lastWholeSecond();
        Map<String, Object> series = new LinkedHashMap<>();
        for (StatsRing.Series s : StatsRing.Series.values()) {
            series.put(s.label, stats.snapshot(s, end, n));
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("interval_seconds", 1);
        out.put("end", end);
        out.put("series", series);
        return AdminResponse.json(200, AdminJson.encode(out));
    }

    /** 1..SECONDS, else -1. */
    private static int parseSeconds(String raw) {
        if (raw.isEmpty() || raw.length() > 4 || !raw.chars().allMatch(c -> c >= '0' && c <= '9')) {
            return -1;
        }
        int n = Integer.parseInt(raw);
        return n >= 1 && n <= StatsRing.SECONDS ? n : -1;
    }

    /** Every configured source, in file order, without a secret. */
    AdminResponse sources() {
        List<Map<String, Object>> list = new ArrayList<>(sources.size());
        for (SourceConfig source : sources) {
            Map<String, Object> one = new LinkedHashMap<>();
            one.put("id", source.id());
            one.put("tenant", source.tenant().orElse(null));
            one.put("scheme", source.verify().scheme());
            one.put("secrets", source.verify().secrets().size());
            one.put("dedupe", source.dedupe().kind().name().toLowerCase(java.util.Locale.ROOT));
            one.put("bytes_per_second", source.bytesPerSecond());
            list.add(one);
        }
        return AdminResponse.json(200, AdminJson.encode(Map.of("sources", list)));
    }

    AdminResponse status() {
        Status now = status.get();
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("ready", now.notReadyReason() == null);
        out.put("not_ready_reason", now.notReadyReason());
        out.put("store_bytes", now.storeBytes() < 0 ? null : now.storeBytes());
        return AdminResponse.json(200, AdminJson.encode(out));
    }
}
