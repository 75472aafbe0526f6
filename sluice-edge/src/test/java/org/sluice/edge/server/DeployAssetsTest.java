package org.sluice.edge.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.core.Clock;
import org.sluice.edge.delivery.KafkaBrokers;
import org.sluice.testkit.HookReceiver;
import org.sluice.testkit.RedisServer;

/**
 * Keeps {@code deploy/} honest: every metric (and every label value it matches on) that the
 * Grafana dashboard and the Prometheus rules use is exported by a real server after real
 * traffic, the dashboard is a well-formed Grafana dashboard, the rules pass {@code promtool
 * check rules} and their unit tests, and docs/operations.md explains every alert.
 */
class DeployAssetsTest {

    /** A metric name of ours in a PromQL expression (Prometheus's own {@code up} is not one). */
    private static final Pattern NAME = Pattern.compile("(?<![A-Za-z0-9_:])(?:sluice|jvm|process|system)_[A-Za-z0-9_]+");
    /** A selector with matchers: {@code name{label="value", ...}}. */
    private static final Pattern SELECTOR = Pattern.compile("((?:sluice|jvm|process|system)_[A-Za-z0-9_]+)\\s*\\{([^}]*)}");
    private static final Pattern MATCHER = Pattern.compile("([A-Za-z_][A-Za-z0-9_]*)\\s*(=~|!~|!=|=)\\s*\"([^\"]*)\"");
    /** Labels Prometheus adds when it scrapes; a server never exports them. */
    private static final Set<String> TARGET_LABELS = Set.of("job", "instance");

    @TempDir
    Path dir;

    static Path repoFile(String relative) {
        Path p = Path.of("..", relative);
        return Files.exists(p) ? p : Path.of(relative);
    }

    static JsonNode dashboard() throws IOException {
        return new ObjectMapper().readTree(repoFile("deploy/grafana/sluice.json").toFile());
    }

    static JsonNode rules() throws IOException {
        return new YAMLMapper().readTree(repoFile("deploy/prometheus/alerts.yml").toFile());
    }

    /** Every PromQL expression in the dashboard: panel targets (rows' nested panels too) and variable queries. */
    static List<String> dashboardExpressions(JsonNode dashboard) {
        List<String> exprs = new ArrayList<>();
        for (JsonNode panel : panels(dashboard)) {
            for (JsonNode target : panel.path("targets")) {
                exprs.add(target.path("expr").asText());
            }
        }
        for (JsonNode variable : dashboard.path("templating").path("list")) {
            JsonNode query = variable.path("query");
            if ("query".equals(variable.path("type").asText())) {
                exprs.add(query.isObject() ? query.path("query").asText() : query.asText());
            }
        }
        return exprs;
    }

    static List<JsonNode> panels(JsonNode dashboard) {
        List<JsonNode> all = new ArrayList<>();
        for (JsonNode panel : dashboard.path("panels")) {
            all.add(panel);
            panel.path("panels").forEach(all::add);
        }
        return all;
    }

    static List<JsonNode> alertRules(JsonNode rules) {
        List<JsonNode> all = new ArrayList<>();
        for (JsonNode group : rules.path("groups")) {
            group.path("rules").forEach(all::add);
        }
        return all;
    }

    /** Sample lines of a scrape, as metric name to the label pairs ({@code label="value"}) seen on it. */
    static Map<String, Set<String>> exported(String text) {
        Map<String, Set<String>> byName = new HashMap<>();
        for (String line : text.lines().toList()) {
            if (line.startsWith("#") || line.isBlank()) {
                continue;
            }
            String series = line.substring(0, line.lastIndexOf(' '));
            int brace = series.indexOf('{');
            String name = brace < 0 ? series : series.substring(0, brace);
            Set<String> labels = byName.computeIfAbsent(name, n -> new HashSet<>());
            if (brace >= 0) {
                Matcher m = MATCHER.matcher(series.substring(brace));
                while (m.find()) {
                    labels.add(m.group(1) + "=\"" + m.group(3) + "\"");
                }
            }
        }
        return byName;
    }

    /**
     * What {@code exprs} need that {@code exported} lacks: metric names, and label values of
     * equality matchers and of plain alternations ({@code a|b}); matchers on a dashboard
     * variable or on a target label are skipped.
     */
    static Set<String> missing(List<String> exprs, Map<String, Set<String>> exported) {
        Set<String> missing = new TreeSet<>();
        for (String expr : exprs) {
            Matcher names = NAME.matcher(expr);
            while (names.find()) {
                if (!exported.containsKey(names.group())) {
                    missing.add(names.group());
                }
            }
            Matcher selectors = SELECTOR.matcher(expr);
            while (selectors.find()) {
                Set<String> labels = exported.getOrDefault(selectors.group(1), Set.of());
                Matcher m = MATCHER.matcher(selectors.group(2));
                while (m.find()) {
                    String label = m.group(1);
                    String value = m.group(3);
                    if (TARGET_LABELS.contains(label) || value.contains("$")) {
                        continue;
                    }
                    boolean regex = m.group(2).endsWith("~");
                    if (regex && !value.matches("[A-Za-z0-9_|]+")) {
                        continue;
                    }
                    for (String v : regex ? value.split("\\|") : new String[] {value}) {
                        if (!labels.contains(label + "=\"" + v + "\"")) {
                            missing.add(selectors.group(1) + "{" + label + "=\"" + v + "\"}");
                        }
                    }
                }
            }
        }
        return missing;
    }

    @Test
    void everyMetricAndLabelValueTheDashboardAndTheRulesUseIsExportedByARunningServer() throws Exception {
        List<String> dashboardExprs = dashboardExpressions(dashboard());
        List<String> ruleExprs = alertRules(rules()).stream().map(r -> r.path("expr").asText()).toList();
        assertThat(dashboardExprs).hasSizeGreaterThan(20);
        assertThat(ruleExprs).hasSizeGreaterThan(5);

        String scraped;
        int accepted;
        // fleet scopes, so the fleet metrics are registered (they exist only under a fleet scope);
        // two destinations, one answering 200 and one 500 (two attempts, then dead), so every
        // delivery outcome has counted; a store bound, so the headroom panel has its figure
        try (RedisServer redis = RedisServer.start();
             HookReceiver good = HookReceiver.start();
             HookReceiver failing = HookReceiver.start().defaultAnswer(HookReceiver.Answer.status(500));
             TestEdge edge = TestEdge.start(dir, """
                http: {listen: "127.0.0.1:0"}
                rate_limits:
                  scope: fleet
                  tenants:
                    acme: {rate: 0.001, burst: 2}
                dedupe: {scope: fleet}
                fleet: {redis: "%s"}
                store: {max_bytes: 1073741824}
                destinations:
                  app: {url: "%s"}
                  flaky:
                    url: "%s"
                    retry: {initial_ms: 1, max_ms: 1, max_attempts: 2}
                    breaker: {failures: 100}
                sources:
                  open: {tenant: acme, verify: {scheme: none}, dedupe: {header: X-Event-Id}, deliver_to: [app, flaky]}
                """.formatted(redis.uri(), good.uri("/in"), failing.uri("/in")))) {
            assertThat(edge.post("/hooks/open", Map.of("X-Event-Id", "1"), "{}").status()).isEqualTo(202);
            assertThat(edge.post("/hooks/open", Map.of("X-Event-Id", "1"), "{}").status()).isEqualTo(200);
            assertThat(edge.post("/hooks/open", Map.of("X-Event-Id", "2"), "{}").status()).isEqualTo(202);
            // the fleet limiter may let a hook or two past the burst before the tenant is refused
            accepted = 2;
            int status = 0;
            for (int i = 3; i < 50 && status != 429; i++) {
                status = edge.post("/hooks/open", Map.of("X-Event-Id", Integer.toString(i)), "{}").status();
                accepted += status == 202 ? 1 : 0;
            }
            assertThat(status).as("the tenant is refused past its burst").isEqualTo(429);
            InetSocketAddress admin = new InetSocketAddress("127.0.0.1", edge.server.adminAddress().getPort());
            assertThat(Http.get(admin, "/v1/rate-limits").status()).isEqualTo(401);
            good.awaitRequests(accepted, Duration.ofSeconds(30));
            failing.awaitRequests(2 * accepted, Duration.ofSeconds(30));
            String dead = "sluice_delivery_dead{destination=\"flaky\"} " + accepted + ".0";
            TestEdge.await(() -> MetricsTest.scrape(edge).contains(dead));
            // jvm_gc_pause_seconds_* appear with the first collection, which a fresh test JVM may
            // not have had yet (a server under traffic has one within seconds): ask for one
            System.gc();
            TestEdge.await(() -> MetricsTest.scrape(edge).contains("jvm_gc_pause_seconds_count"));
            scraped = MetricsTest.scrape(edge);
        }
        assertThat(scraped)
                .contains("sluice_delivery_attempts_total{destination=\"app\",outcome=\"delivered\"} " + accepted + ".0")
                .contains("sluice_delivery_attempts_total{destination=\"flaky\",outcome=\"retry\"} " + accepted + ".0")
                .contains("sluice_delivery_attempts_total{destination=\"flaky\",outcome=\"dead\"} " + accepted + ".0")
                .contains("sluice_store_max_bytes 1.073741824E9");
        Map<String, Set<String>> exported = exported(scraped);
        exported(scrapeKafkaKind()).forEach((name, labels) ->
                exported.computeIfAbsent(name, n -> new HashSet<>()).addAll(labels));

        assertThat(missing(dashboardExprs, exported))
                .as("names the dashboard uses that the server does not export; exported: %s", new TreeSet<>(exported.keySet()))
                .isEmpty();
        assertThat(missing(ruleExprs, exported))
                .as("names the rules use that the server does not export; exported: %s", new TreeSet<>(exported.keySet()))
                .isEmpty();
    }

    /**
     * A scrape of a node of {@code store.kind: kafka} with a destination, after a hook was
     * delivered: the fleet log's metrics (produce, the delivery group's figures) exist only there.
     */
    private String scrapeKafkaKind() throws Exception {
        try (KafkaBrokers brokers = KafkaBrokers.start(1, Map.of());
             HookReceiver receiver = HookReceiver.start();
             TestEdge edge = TestEdge.startWhole(dir, """
                node: {id: k, data_dir: "%s"}
                admin: {listen: "127.0.0.1:0"}
                http: {listen: "127.0.0.1:0"}
                sources:
                  open: {tenant: acme, verify: {scheme: none}, deliver_to: [app]}
                destinations:
                  app: {url: "%s"}
                store:
                  kind: kafka
                  kafka: {bootstrap_servers: ["%s"], topic_prefix: assets, partitions: 2, replication_factor: 1}
                """.formatted(dir.resolve("kafka-node"), receiver.uri("/in"), brokers.bootstrapServers()),
                     b -> b.clock(Clock.system()))) {
            TestEdge.await(() -> edge.post("/hooks/open", Map.of(), "{}").status() == 202);
            receiver.awaitRequests(1, Duration.ofSeconds(30));
            TestEdge.await(() -> MetricsTest.scrape(edge).contains("sluice_log_rebalances_total{kind=\"assigned\"} 1.0"));
            return MetricsTest.scrape(edge);
        }
    }

    @Test
    void theCheckCatchesANameOrALabelValueTheServerDoesNotExport() {
        Map<String, Set<String>> exported = exported("""
                # TYPE sluice_ingest_requests_total counter
                sluice_ingest_requests_total{outcome="accepted"} 1.0
                sluice_ingest_requests_total{outcome="overload"} 0.0
                sluice_store_healthy 1.0
                """);
        assertThat(missing(List.of("sum(rate(sluice_ingest_requests_total{instance=~\"$instance\", outcome=~\"accepted|overload\"}[5m]))",
                "sluice_store_healthy == 0"), exported)).isEmpty();
        assertThat(missing(List.of("rate(sluice_ingest_request_total[5m])"), exported))
                .containsExactly("sluice_ingest_request_total");
        assertThat(missing(List.of("rate(sluice_ingest_requests_total{outcome=~\"accepted|overlaod\"}[5m])"), exported))
                .containsExactly("sluice_ingest_requests_total{outcome=\"overlaod\"}");
        assertThat(missing(List.of("histogram_quantile(0.99, rate(sluice_store_healthy_bucket[5m]))"), exported))
                .containsExactly("sluice_store_healthy_bucket");
    }

    @Test
    void theDashboardIsAWellFormedGrafanaDashboard() throws Exception {
        JsonNode d = dashboard();
        assertThat(d.path("uid").asText()).isNotEmpty();
        assertThat(d.path("title").asText()).isNotEmpty();
        assertThat(d.path("schemaVersion").asInt()).isGreaterThanOrEqualTo(36);
        Map<String, JsonNode> variables = new HashMap<>();
        d.path("templating").path("list").forEach(v -> variables.put(v.path("name").asText(), v));
        assertThat(variables.get("datasource").path("type").asText()).isEqualTo("datasource");
        assertThat(variables.get("datasource").path("query").asText()).isEqualTo("prometheus");
        assertThat(variables).containsKey("instance");

        Set<Integer> ids = new HashSet<>();
        int rows = 0;
        for (JsonNode panel : panels(d)) {
            String title = panel.path("title").asText();
            assertThat(ids.add(panel.path("id").asInt())).as("panel id %s of '%s' is unique", panel.path("id"), title).isTrue();
            JsonNode grid = panel.path("gridPos");
            assertThat(grid.path("w").asInt()).as(title).isBetween(1, 24);
            assertThat(grid.path("x").asInt() + grid.path("w").asInt()).as(title).isLessThanOrEqualTo(24);
            assertThat(grid.path("h").asInt()).as(title).isPositive();
            if ("row".equals(panel.path("type").asText())) {
                rows++;
                continue;
            }
            assertThat(panel.path("type").asText()).as(title).isIn("timeseries", "stat");
            assertThat(panel.path("datasource").path("uid").asText()).as(title).isEqualTo("${datasource}");
            assertThat(panel.path("fieldConfig").path("defaults").path("unit").asText()).as(title).isNotEmpty();
            assertThat(panel.path("targets")).as(title).isNotEmpty();
            Set<String> refIds = new HashSet<>();
            for (JsonNode target : panel.path("targets")) {
                assertThat(target.path("expr").asText()).as(title).isNotBlank();
                assertThat(refIds.add(target.path("refId").asText())).as("refIds of '%s' are unique", title).isTrue();
                Matcher vars = Pattern.compile("\\$(?:\\{)?([A-Za-z_]+)").matcher(target.path("expr").asText());
                while (vars.find()) {
                    String var = vars.group(1);
                    assertThat(var.startsWith("__") || variables.containsKey(var))
                            .as("'%s' uses $%s, which is not a dashboard variable", title, var).isTrue();
                }
            }
        }
        assertThat(rows).isGreaterThanOrEqualTo(5);
    }

    @Test
    void everyAlertHasADurationASeverityAnExplanationAndAnEntryInTheOperationsDoc() throws Exception {
        String operations = Files.readString(repoFile("docs/operations.md"), StandardCharsets.UTF_8);
        List<JsonNode> rules = alertRules(rules());
        assertThat(rules).isNotEmpty();
        for (JsonNode rule : rules) {
            String name = rule.path("alert").asText();
            assertThat(name).startsWith("Sluice");
            assertThat(rule.path("for").asText()).as(name).isNotEmpty();
            assertThat(rule.path("labels").path("severity").asText()).as(name).isIn("critical", "warning");
            assertThat(rule.path("annotations").path("summary").asText()).as(name).isNotBlank();
            assertThat(rule.path("annotations").path("description").asText()).as(name).isNotBlank();
            assertThat(operations).as("docs/operations.md explains %s", name).contains("`" + name + "`");
        }
    }

    @Test
    void theRulesPassPromtoolCheckRules() throws Exception {
        String out = promtool("check", "rules", repoFile("deploy/prometheus/alerts.yml").toString());
        assertThat(out).contains("SUCCESS");
    }

    @Test
    void theRulesPassTheirPromtoolUnitTests() throws Exception {
        String out = promtool("test", "rules", repoFile("deploy/prometheus/alerts_test.yml").toString());
        assertThat(out).contains("SUCCESS");
    }

    @Test
    void theDashboardQueriesParseAsPromQL() throws Exception {
        // promtool parses recording rules' expressions; the dashboard's variables get sample values
        StringBuilder rules = new StringBuilder("groups:\n  - name: dashboard\n    rules:\n");
        int n = 0;
        for (JsonNode panel : panels(dashboard())) {
            for (JsonNode target : panel.path("targets")) {
                String expr = target.path("expr").asText()
                        .replace("$__rate_interval", "1m").replaceAll("\\$(instance|destination)\\b", ".*");
                rules.append("      - record: dashboard:expr").append(n++).append("\n        expr: ")
                        .append(new ObjectMapper().writeValueAsString(expr)).append('\n');
            }
        }
        Path file = dir.resolve("dashboard-exprs.yml");
        Files.writeString(file, rules, StandardCharsets.UTF_8);
        assertThat(promtool("check", "rules", file.toString())).contains("SUCCESS: " + n + " rules found");
    }

    /** Runs promtool (from PATH) and returns its output, failing on a non-zero exit; skips loudly without it. */
    private static String promtool(String... args) throws Exception {
        Path promtool = onPath("promtool");
        if (promtool == null) {
            System.err.println("""
                    ************************************************************************
                    DeployAssetsTest: promtool is not on PATH, so the Prometheus rules are NOT
                    checked. Install it (Debian: apt-get install prometheus; .ci/run does).
                    ************************************************************************""");
        }
        Assumptions.assumeTrue(promtool != null, "promtool is not on PATH: the rules are not checked");
        List<String> command = new ArrayList<>(List.of(promtool.toString()));
        command.addAll(List.of(args));
        Path log = Files.createTempFile("promtool", ".log");
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("promtool finished").isTrue();
            String out = Files.readString(log, StandardCharsets.UTF_8);
            assertThat(p.exitValue()).as("%s exit code; output:%n%s", command, out).isZero();
            return out;
        } finally {
            Files.deleteIfExists(log);
        }
    }

    private static Path onPath(String binary) {
        for (String entry : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            Path candidate = Path.of(entry.isEmpty() ? "." : entry, binary);
            if (Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        return null;
    }
}
