package org.sluice.edge.load;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * The self-contained HTML report of a run: uPlot's script and style inlined from its WebJar
 * (nothing is fetched when the page opens), the run's data as JSON in a
 * {@code <script type="application/json" id="data">} block, and a small script that draws
 * three charts (requests offered, accepted and refused per second; latency percentiles per
 * second; the status mix per second) under the summary.
 */
public final class HtmlReport {

    /** Where the WebJar keeps uPlot's files on the classpath. */
    static final String UPLOT = "META-INF/resources/webjars/uplot/1.6.30/dist/";

    private static final ObjectMapper JSON = new ObjectMapper();

    private HtmlReport() {
    }

    /** Writes the report of {@code result} to {@code file}. */
    public static void write(Path file, LoadOptions options, LoadRun.Result result) throws IOException {
        Files.writeString(file, render(options, result), StandardCharsets.UTF_8);
    }

    static String render(LoadOptions options, LoadRun.Result result) {
        Map<String, Object> data = new LinkedHashMap<>();
        Map<String, Object> run = new LinkedHashMap<>();
        run.put("url", options.url().toString());
        run.put("source", options.source());
        run.put("scheme", options.scheme());
        run.put("rate", options.rate());
        run.put("duration_s", options.durationNanos() / 1e9);
        run.put("connections", options.connections());
        run.put("body_bytes", options.bodyBytes());
        run.put("duplicates", options.duplicates());
        run.put("bad_signatures", options.badSignatures());
        run.put("tenants", options.tenants());
        data.put("run", run);
        data.put("summary", result.summary());
        data.put("seconds", columns(result.seconds()));
        String json;
        try {
            // "<" never appears raw, so the data cannot close its script element
            json = JSON.writeValueAsString(data).replace("<", "\\u003c");
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
        return """
                <!DOCTYPE html>
                <html lang="en"><head><meta charset="utf-8"><title>sluice load report</title>
                <style>%s</style>
                <style>
                body{font:14px system-ui,sans-serif;margin:20px;color:#222}
                table{border-collapse:collapse;margin:8px 0 20px}td,th{border:1px solid #ccc;padding:3px 8px;text-align:left}
                .chart{margin:16px 0}
                </style>
                <script>%s</script>
                </head><body>
                <h1>sluice load</h1>
                <div id="run"></div>
                <div id="charts"></div>
                <script type="application/json" id="data">%s</script>
                <script>%s</script>
                </body></html>
                """.formatted(resource("uPlot.min.css"), resource("uPlot.iife.min.js"), json, DRAW);
    }

    private static Map<String, List<Object>> columns(List<LoadRun.Second> seconds) {
        String[] names = {"t", "offered", "sent", "accepted", "refused", "failed", "p50", "p90", "p99", "max",
                "s202", "s200", "s401", "s429", "s503", "other"};
        Map<String, List<Object>> c = new LinkedHashMap<>();
        for (String n : names) {
            c.put(n, new ArrayList<>());
        }
        for (LoadRun.Second s : seconds) {
            LoadStats.Snapshot d = s.delta();
            Histogram h = s.latency();
            c.get("t").add(s.t());
            c.get("offered").add(d.offered());
            c.get("sent").add(d.sent());
            c.get("accepted").add(d.accepted());
            c.get("refused").add(d.refused());
            c.get("failed").add(d.errors() + d.notSent());
            c.get("p50").add(ms(h, 50));
            c.get("p90").add(ms(h, 90));
            c.get("p99").add(ms(h, 99));
            c.get("max").add(h.getTotalCount() == 0 ? null : h.getMaxValue() / 1000.0);
            c.get("s202").add(d.status(202));
            c.get("s200").add(d.status(200));
            c.get("s401").add(d.status(401));
            c.get("s429").add(d.status(429));
            c.get("s503").add(d.status(503));
            c.get("other").add(d.responses() - d.status(202) - d.status(200) - d.status(401) - d.status(429) - d.status(503));
        }
        return c;
    }

    private static Double ms(Histogram h, double percentile) {
        return h.getTotalCount() == 0 ? null : h.getValueAtPercentile(percentile) / 1000.0;
    }

    private static String resource(String name) {
        try (InputStream in = HtmlReport.class.getClassLoader().getResourceAsStream(UPLOT + name)) {
            if (in == null) {
                throw new IllegalStateException("uPlot's " + name + " is not on the classpath (" + UPLOT + name + ")");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Draws the summary table and the three charts from the data block. */
    private static final String DRAW = """
            (function () {
              var d = JSON.parse(document.getElementById('data').textContent);
              var s = d.seconds;
              function esc(v) { return String(v).replace(/[&<>"]/g, function (c) { return '&#' + c.charCodeAt(0) + ';'; }); }
              function table(obj) {
                var rows = '';
                Object.keys(obj).forEach(function (k) {
                  var v = obj[k];
                  rows += '<tr><th>' + esc(k) + '</th><td>' + esc(typeof v === 'object' ? JSON.stringify(v) : v) + '</td></tr>';
                });
                return '<table>' + rows + '</table>';
              }
              document.getElementById('run').innerHTML = '<h2>Run</h2>' + table(d.run) + '<h2>Summary</h2>' + table(d.summary);
              var charts = document.getElementById('charts');
              function chart(title, unit, series, columns) {
                var el = document.createElement('div');
                el.className = 'chart';
                charts.appendChild(el);
                new uPlot({
                  title: title, width: Math.max(600, Math.min(1200, window.innerWidth - 60)), height: 300,
                  scales: {x: {time: false}},
                  axes: [{label: 'seconds since start'}, {label: unit}],
                  series: [{label: 's'}].concat(series.map(function (x) {
                    return {label: x[0], stroke: x[1], width: 2, spanGaps: false};
                  }))
                }, [s.t].concat(columns), el);
              }
              chart('Requests per second: offered, accepted (202 + 200), refused, not answered', 'requests',
                [['offered', '#888'], ['accepted', '#2a8a2a'], ['refused', '#d33'], ['errors + not sent', '#a0a']],
                [s.offered, s.accepted, s.refused, s.failed]);
              chart('Latency from the intended send time, per second', 'ms',
                [['p50', '#1f77b4'], ['p90', '#2ca02c'], ['p99', '#ff7f0e'], ['max', '#d62728']],
                [s.p50, s.p90, s.p99, s.max]);
              chart('Status mix per second', 'answers',
                [['202', '#2a8a2a'], ['200 duplicate', '#7fbf7f'], ['401', '#9467bd'], ['429', '#ff7f0e'],
                 ['503', '#d62728'], ['other', '#888']],
                [s.s202, s.s200, s.s401, s.s429, s.s503, s.other]);
            })();
            """;
}
