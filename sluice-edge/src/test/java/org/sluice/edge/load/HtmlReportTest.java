package org.sluice.edge.load;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The report of a real run: uPlot inlined, the run's data in a JSON block, nothing fetched. */
class HtmlReportTest {

    @TempDir
    Path dir;

    @Test
    void reportInlinesUplotAndCarriesTheRunsDataAsJson() throws Exception {
        String yaml = """
                http: {listen: "127.0.0.1:0"}
                rate_limits:
                  tenants:
                    acme: {rate: 1, burst: 10}
                sources:
                  demo:
                    tenant: acme
                    verify: {scheme: hmac, header: X-Signature, prefix: "sha256=", secrets: ["s3cret"]}
                    dedupe: {header: X-Event-Id}
                """;
        try (LoadEdge edge = new LoadEdge(dir.resolve("data"), yaml)) {
            LoadOptions options = edge.options("demo", "hmac", "s3cret");
            LoadRun.Result result = LoadRun.run(options, l -> { });
            Path file = dir.resolve("report.html");
            HtmlReport.write(file, options, result);
            String html = Files.readString(file, StandardCharsets.UTF_8);

            String uplot;
            try (var in = HtmlReport.class.getClassLoader().getResourceAsStream(HtmlReport.UPLOT + "uPlot.iife.min.js")) {
                uplot = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            assertThat(html).contains(uplot).contains("new uPlot(");
            assertThat(html).doesNotContain("<script src").doesNotContain("<link");

            String open = "<script type=\"application/json\" id=\"data\">";
            int from = html.indexOf(open) + open.length();
            JsonNode data = new ObjectMapper().readTree(html.substring(from, html.indexOf("</script>", from)));
            assertThat(data.at("/summary/sent").asLong()).isEqualTo(80);
            assertThat(data.at("/summary/status/202").asLong()).isEqualTo(10);
            assertThat(data.at("/summary/refused_by_scope/tenant").asLong()).isEqualTo(70);
            assertThat(data.at("/run/scheme").asText()).isEqualTo("hmac");
            JsonNode seconds = data.get("seconds");
            assertThat(sum(seconds.get("sent"))).isEqualTo(80);
            assertThat(sum(seconds.get("accepted"))).isEqualTo(10);
            assertThat(sum(seconds.get("s429"))).isEqualTo(70);
            assertThat(seconds.get("t").size()).isEqualTo(seconds.get("p99").size()).isPositive();
        }
    }

    private static long sum(JsonNode array) {
        return StreamSupport.stream(array.spliterator(), false).mapToLong(JsonNode::asLong).sum();
    }
}
