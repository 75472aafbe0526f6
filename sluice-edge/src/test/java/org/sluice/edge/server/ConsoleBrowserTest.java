package org.sluice.edge.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.sluice.edge.store.DeliveryRow;
import org.sluice.edge.store.DeliveryState;
import org.sluice.testkit.HookReceiver;

/**
 * The web console in a real browser: headless Chromium from the system's packages driven
 * by Selenium, against a real server (real sockets, the RocksDB store in a temp dir).
 * Nothing is downloaded: the driver and the browser are the installed binaries, and the
 * test is skipped (loudly) where they are missing. {@code -Dsluice.screenshots=DIR} saves
 * a PNG of each page to {@code DIR} (relative to the repository root).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConsoleBrowserTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient CLIENT = HttpClient.newHttpClient();
    private static final String SECRET = "demo-secret";
    private static final String HOSTILE_BODY =
            "{\"note\":\"<img src=x onerror=window.__xss=1><script>window.__xss=2</script>\"}";
    private static final String HOSTILE_HEADER = "<script>window.__xss=3</script>";

    /** {@code ${RECEIVER}}: the test receiver's URL, the {@code app} destination. */
    private static final String CONFIG = """
            http: {listen: "127.0.0.1:0", prefix: /hooks}
            destinations:
              app: {type: http, url: "${RECEIVER}"}
              audit-log: {type: http, url: "${RECEIVER}", transform: {method: PUT, headers: {X-Src: "{source}"}},
                          rate: {rate: adaptive, min: 2, max: 20}}
            rate_limits:
              tenants:
                demo: {rate: 1, burst: 1000}
            sources:
              demo:
                tenant: demo
                verify: {scheme: hmac, header: X-Signature, prefix: "sha256=", algorithm: sha256,
                         encoding: hex, secrets: ["demo-secret"]}
                dedupe: {header: X-Event-Id}
                deliver_to: [app]
                store_headers: [X-Note]
            """;

    @TempDir
    static Path dir;

    private TestEdge edge;
    private HookReceiver receiver;
    private ConsoleBrowser console;
    private WebDriver browser;
    private String admin;
    private String token;

    @BeforeAll
    void start() throws Exception {
        console = ConsoleBrowser.open(dir, "ConsoleBrowserTest");
        browser = console.driver();
        receiver = HookReceiver.start();
        edge = TestEdge.start(dir, CONFIG.replace("${RECEIVER}", receiver.uri("/in").toString()));
        admin = "http://127.0.0.1:" + edge.server.adminAddress().getPort();
        token = Files.readString(dir.resolve("admin.token")).strip();
    }

    @AfterAll
    void stop() {
        if (console != null) {
            console.close();
        }
        if (edge != null) {
            edge.close();
        }
        if (receiver != null) {
            receiver.close();
        }
    }

    // ------------------------------------------------------------------ helpers

    private WebDriverWait waiting() {
        return console.waiting();
    }

    private WebElement byId(String id) {
        return console.byId(id);
    }

    private void show(String page) {
        console.show(admin, page);
    }

    private Http.Response sendHook(String eventId, String body, boolean signed, Map<String, String> extra) throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(SECRET.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        String sig = signed ? HexFormat.of().formatHex(mac.doFinal(body.getBytes(StandardCharsets.UTF_8))) : "0".repeat(64);
        Map<String, String> headers = new LinkedHashMap<>(extra);
        headers.put("Content-Type", "application/json");
        headers.put("X-Signature", "sha256=" + sig);
        headers.put("X-Event-Id", eventId);
        return edge.post("/hooks/demo", headers, body);
    }

    private JsonNode adminGet(String path) throws Exception {
        HttpResponse<String> r = CLIENT.send(HttpRequest.newBuilder(URI.create(admin + path))
                .header("Authorization", "Bearer " + token).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return JSON.readTree(r.body());
    }

    private void screenshot(String name) throws Exception {
        String to = System.getProperty("sluice.screenshots");
        if (to == null || to.isBlank()) {
            return;
        }
        Path out = Path.of(to);
        if (!out.isAbsolute() && Files.exists(Path.of("..", "pom.xml")) && !Files.exists(Path.of("sluice-edge"))) {
            out = Path.of("..").resolve(out);   // surefire runs in the module; the path is from the repository root
        }
        Files.createDirectories(out);
        byte[] png = ((TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES);
        Files.write(out.resolve("console-" + name + ".png"), png);
    }

    private boolean noScriptRan() {
        Object injected = ((JavascriptExecutor) browser).executeScript("return window.__xss === undefined;");
        return Boolean.TRUE.equals(injected);
    }

    // ------------------------------------------------------------------ cases

    @Test
    @Order(0)
    void theConsoleIsServedWithoutTheTokenWithItsSecurityHeaders() throws Exception {
        HttpResponse<String> page = CLIENT.send(HttpRequest.newBuilder(URI.create(admin + "/console")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.body()).contains("<title>Sluice console</title>");
        assertThat(page.headers().firstValue("Content-Security-Policy")).hasValueSatisfying(csp -> assertThat(csp)
                .startsWith("default-src 'self'; script-src 'self'; style-src 'self';")
                .contains("frame-ancestors 'none'"));
        assertThat(page.headers().firstValue("X-Frame-Options")).hasValue("DENY");
        assertThat(page.headers().firstValue("Referrer-Policy")).hasValue("no-referrer");
        HttpResponse<String> chart = CLIENT.send(HttpRequest.newBuilder(
                URI.create(admin + "/console/uplot/uPlot.iife.min.js")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(chart.statusCode()).isEqualTo(200);
        assertThat(chart.body()).contains("uPlot");
    }

    @Test
    @Order(1)
    void wrongTokenIsRefused() throws Exception {
        browser.get(admin + "/console");
        waiting().until(d -> byId("login").isDisplayed());
        byId("token").sendKeys("not-the-token");
        byId("token-save").click();
        waiting().until(d -> !byId("login-error").getText().isEmpty());
        assertThat(byId("login-error").getText()).contains("admin token was refused (401");
        assertThat(byId("app").isDisplayed()).isFalse();
        Object stored = ((JavascriptExecutor) browser).executeScript("return sessionStorage.getItem('sluice.adminToken');");
        assertThat(stored).isNull();
        screenshot("login");
    }

    @Test
    @Order(2)
    void rightTokenShowsTheDemoTenant() throws Exception {
        browser.get(admin + "/console");
        byId("token").clear();
        byId("token").sendKeys(token);
        byId("token-save").click();
        waiting().until(d -> byId("app").isDisplayed());
        show("tenants");
        waiting().until(d -> byId("tenants-table").getText().contains("demo"));
        assertThat(byId("tenants-table").getText()).contains("demo").contains("config");
        Object stored = ((JavascriptExecutor) browser).executeScript("return sessionStorage.getItem('sluice.adminToken');");
        assertThat(stored).isEqualTo(token);
    }

    @Test
    @Order(3)
    void anOverrideSetOnThePageShowsInTheAudit() throws Exception {
        show("tenants");
        byId("ov-tenant").sendKeys("demo");
        byId("ov-rate").sendKeys("7");
        byId("ov-burst").sendKeys("9");
        byId("ov-actor").sendKeys("console-operator");
        byId("ov-set").click();
        waiting().until(d -> byId("ov-result").getText().contains("Override set for demo"));
        waiting().until(d -> byId("tenants-table").getText().contains("override"));

        JsonNode newest = adminGet("/v1/audit?limit=1").get("audit").get(0);
        assertThat(newest.get("actor").asText()).isEqualTo("console-operator");
        assertThat(newest.get("action").asText()).isEqualTo("put");
        assertThat(newest.get("tenant").asText()).isEqualTo("demo");
        assertThat(newest.get("after").toString()).isEqualTo("{\"rate\":7,\"burst\":9}");
        waiting().until(d -> byId("tenants-audit").getText().contains("console-operator"));
        screenshot("tenants");

        show("audit");
        waiting().until(d -> byId("audit-table").getText().contains("console-operator"));
        screenshot("audit");
    }

    @Test
    @Order(4)
    void sourcesShowsTheDemoSourceAndNoSecret() throws Exception {
        show("sources");
        waiting().until(d -> byId("sources-table").getText().contains("hmac"));
        String text = byId("sources-table").getText();
        assertThat(text).contains("demo").contains("header");
        assertThat(browser.getPageSource()).doesNotContain(SECRET);
        screenshot("sources");
    }

    @Test
    @Order(5)
    void aHookWithMarkupInItsBodyAndHeadersRendersAsText() throws Exception {
        assertThat(sendHook("evt-plain", "{\"id\":\"evt-plain\",\"type\":\"demo\"}", true, Map.of()).status()).isEqualTo(202);
        assertThat(sendHook("evt-hostile", HOSTILE_BODY, true, Map.of("X-Note", HOSTILE_HEADER)).status()).isEqualTo(202);
        show("hooks");
        waiting().until(d -> d.findElements(By.cssSelector("#hooks-table tbody tr")).size() == 2);
        List<WebElement> rows = browser.findElements(By.cssSelector("#hooks-table tbody tr"));
        rows.get(0).click();   // newest first: the hostile one
        waiting().until(d -> byId("hook-detail").isDisplayed());

        assertThat(byId("hook-body").getText()).isEqualTo(HOSTILE_BODY);
        assertThat(byId("hook-headers").getText()).contains(HOSTILE_HEADER);
        assertThat(browser.findElements(By.cssSelector("#hook-body *, #hook-headers img, #hook-headers script"))).isEmpty();
        assertThat(browser.findElements(By.tagName("script"))).hasSize(2);   // the page's own two
        assertThat(noScriptRan()).as("a script from the hook ran").isTrue();
        screenshot("hooks");

        byId("hook-toggle").click();
        waiting().until(d -> byId("hook-body").getText().startsWith("00000000"));
        assertThat(byId("hook-body").getText()).contains("3c 69 6d 67");   // "<img"
        assertThat(byId("hook-toggle").getText()).isEqualTo("Show as text");
        assertThat(noScriptRan()).isTrue();
    }

    @Test
    @Order(6)
    void theOverviewChartHasPointsAfterHooksAreSent() throws Exception {
        for (int i = 0; i < 5; i++) {
            assertThat(sendHook("evt-" + i, "{\"n\":" + i + "}", true, Map.of()).status()).isEqualTo(202);
        }
        assertThat(sendHook("evt-0", "{\"n\":0}", true, Map.of()).status()).isEqualTo(200);    // duplicate
        assertThat(sendHook("evt-bad", "{\"n\":9}", false, Map.of()).status()).isEqualTo(401); // bad signature
        show("overview");
        waiting().until(d -> Integer.parseInt(byId("overview-chart").getAttribute("data-points")) >= 3
                && Long.parseLong(byId("ov-accepted").getText()) == 7);
        assertThat(browser.findElements(By.cssSelector("#overview-chart canvas"))).isNotEmpty();
        assertThat(byId("ov-ready").getText()).isEqualTo("ready");
        assertThat(byId("ov-store").getText()).isNotIn("-", "unknown");
        assertThat(byId("ov-fleet").getText()).startsWith("no fleet");

        JsonNode series = adminGet("/v1/stats/timeseries?seconds=900").get("series");
        long accepted = 0;
        for (JsonNode v : series.get("accepted")) {
            accepted += v.asLong();
        }
        assertThat(accepted).isEqualTo(7);
        screenshot("overview");

        // Nothing on any page was blocked by the Content-Security-Policy.
        List<String> violations = browser.manage().logs().get(LogType.BROWSER).getAll().stream()
                .map(LogEntry::getMessage).filter(m -> m.contains("Content Security Policy")).toList();
        assertThat(violations).isEmpty();
    }

    @Test
    @Order(7)
    void aDestinationPausedOrDisabledOnThePageIsResumedOrEnabledThere() throws Exception {
        DeliveryAdminTest.commit(edge, 4, "app", "audit-log");   // a backlog to show
        show("destinations");
        By pause = By.cssSelector("#destinations-table button[data-destination='app']");
        waiting().until(d -> !d.findElements(pause).isEmpty() && d.findElement(pause).getText().equals("Pause"));
        byId("dest-actor").sendKeys("console-operator");
        browser.findElement(pause).click();
        waiting().until(d -> byId("dest-result").getText().contains("app is paused"));
        waiting().until(d -> d.findElement(pause).getText().equals("Resume"));
        assertThat(stateOf("app")).isEqualTo("paused");
        assertThat(stateOf("audit-log")).isEqualTo("ok");
        // the pace column: an adaptive destination's pace where it stands (its min: nothing answered yet), "-" unpaced
        By auditRow = By.cssSelector("#destinations-table tr[data-destination='audit-log']");
        waiting().until(d -> d.findElement(auditRow).getText().contains("2 (adaptive)"));
        String appPace = waiting().until(d -> d.findElement(
                By.cssSelector("#destinations-table tr[data-destination='app'] td:nth-child(5)")).getText());
        assertThat(appPace).isEqualTo("-");
        JsonNode newest = adminGet("/v1/audit?limit=1").get("audit").get(0);
        assertThat(newest.get("actor").asText()).isEqualTo("console-operator");
        assertThat(newest.get("action").asText()).isEqualTo("pause");
        waiting().until(d -> d.findElement(By.cssSelector("#destinations-table tr[data-destination='app']"))
                .getText().contains("paused"));
        screenshot("destinations");

        browser.findElement(pause).click();   // resume
        waiting().until(d -> byId("dest-result").getText().contains("app is ok"));
        assertThat(stateOf("app")).isEqualTo("ok");

        // disabled (as the dispatcher disables a destination failing past disable_after_seconds): shown, then enabled
        long disabledAt = System.currentTimeMillis();
        edge.backends().overrides().setDisabled("app",
                new org.sluice.edge.store.DisabledDestination(disabledAt, "HTTP 503"), disabledAt);
        waiting().until(d -> d.findElement(pause).getText().equals("Enable"));
        String shown = waiting().until(d -> d.findElement(By.cssSelector("#destinations-table tr[data-destination='app']")).getText());
        assertThat(shown).contains("disabled since").contains("HTTP 503");
        browser.findElement(pause).click();   // enable
        // "app is ok." still stands from the resume above, so the wait is for the button the
        // table shows once the enable answered and the console read the destinations again
        waiting().until(d -> d.findElement(pause).getText().equals("Pause"));
        assertThat(byId("dest-result").getText()).contains("app is ok");
        assertThat(stateOf("app")).isEqualTo("ok");
        assertThat(adminGet("/v1/audit?limit=1").get("audit").get(0).get("action").asText()).isEqualTo("enable");
    }

    private String stateOf(String destination) throws Exception {
        for (JsonNode d : adminGet("/v1/destinations").get("destinations")) {
            if (d.get("name").asText().equals(destination)) {
                return d.get("state").asText();
            }
        }
        throw new AssertionError("no destination " + destination);
    }

    @Test
    @Order(8)
    void aDeadLetterRedeliveredOnThePageReachesTheReceiver() throws Exception {
        // both destinations paused while the test makes its dead letters, so the dispatcher cannot deliver them first
        long now = System.currentTimeMillis();
        edge.backends().store().deliveries().setPaused("app", true, now);
        edge.backends().store().deliveries().setPaused("audit-log", true, now);
        List<String> ids = DeliveryAdminTest.commit(edge, 3, "app", "audit-log");
        for (String id : ids) {
            DeliveryAdminTest.kill(edge, id, "app");
        }
        DeliveryAdminTest.kill(edge, ids.get(2), "audit-log");
        show("dead-letters");
        waiting().until(d -> d.findElements(By.cssSelector("#dead-table tbody tr")).size() >= 3);
        new Select(byId("dl-destination")).selectByValue("app");
        waiting().until(d -> d.findElements(By.cssSelector("#dead-table tbody tr")).size() == 3);

        // inspect: the hook view with its deliveries
        browser.findElement(By.cssSelector("#dead-table tr[data-hook='" + ids.get(0) + "'] button.inspect")).click();
        waiting().until(d -> byId("page-hooks").isDisplayed() && byId("hook-detail").isDisplayed()
                && byId("hook-id").getText().equals(ids.get(0)));
        assertThat(byId("hook-deliveries").getText()).contains("app").contains("dead").contains("permanent_status")
                .contains("audit-log").contains("pending")
                .contains("every hook"); // the Filter column: these deliver_to entries have no when: filter

        // redeliver one: a fresh pending delivery, attempts from 1 (the destination is paused: nothing is sent yet)
        show("dead-letters");
        By again = By.cssSelector("#dead-table tr[data-hook='" + ids.get(1) + "'] button.redeliver");
        waiting().until(d -> !d.findElements(again).isEmpty());
        byId("dl-actor").sendKeys("console-operator");
        browser.findElement(again).click();
        waiting().until(d -> byId("dl-result").getText().contains("Redelivery of " + ids.get(1) + " to app scheduled"));
        DeliveryRow fresh = DeliveryAdminTest.row(edge, ids.get(1), "app");
        assertThat(fresh.state()).isEqualTo(DeliveryState.PENDING);
        assertThat(fresh.attempts()).isZero();
        assertThat(DeliveryAdminTest.row(edge, ids.get(0), "app").state()).isEqualTo(DeliveryState.DEAD);
        waiting().until(d -> d.findElements(By.cssSelector("#dead-table tr[data-hook='" + ids.get(1) + "']")).isEmpty());
        JsonNode newest = adminGet("/v1/audit?limit=1").get("audit").get(0);
        assertThat(newest.get("action").asText()).isEqualTo("redeliver");
        assertThat(newest.get("actor").asText()).isEqualTo("console-operator");

        // resumed, the dispatcher hands the redelivered hook to the receiver
        int before = receiver.requestCount();
        edge.backends().store().deliveries().setPaused("app", false, System.currentTimeMillis());
        edge.backends().dispatcher().pausedChanged("app");
        java.util.List<HookReceiver.Received> got = receiver.awaitRequests(before + 1, java.time.Duration.ofSeconds(30));
        assertThat(got).extracting(r -> r.header("webhook-id")).contains(ids.get(1));
        edge.backends().store().deliveries().setPaused("app", true, System.currentTimeMillis());
        edge.backends().dispatcher().pausedChanged("app");

        // replay the range, dead only: the two left, with a progress bar to the end
        new Select(byId("rp-destination")).selectByValue("app");
        byId("rp-from").clear();
        byId("rp-from").sendKeys(java.time.Instant.now().minusSeconds(600).toString());
        byId("rp-to").clear();
        byId("rp-to").sendKeys(java.time.Instant.now().plusSeconds(60).toString());
        byId("rp-start").click();
        waiting().until(d -> "done".equals(byId("rp-progress").getAttribute("data-state")));
        assertThat(byId("rp-result").getText()).contains(": 2 hooks to schedule");
        assertThat(byId("rp-text").getText()).startsWith("2 / 2 scheduled");
        assertThat(byId("rp-bar").getAttribute("value")).isEqualTo("2");
        assertThat(DeliveryAdminTest.row(edge, ids.get(0), "app").state()).isEqualTo(DeliveryState.PENDING);
        assertThat(DeliveryAdminTest.row(edge, ids.get(1), "app").state()).isEqualTo(DeliveryState.DELIVERED);
        assertThat(DeliveryAdminTest.row(edge, ids.get(2), "app").state()).isEqualTo(DeliveryState.PENDING);
        new Select(byId("dl-destination")).selectByValue("");
        waiting().until(d -> d.findElements(By.cssSelector("#dead-table tbody tr")).size() == 1);
        assertThat(byId("dead-table").getText()).contains("audit-log");
        screenshot("dead-letters");

        List<String> violations = browser.manage().logs().get(LogType.BROWSER).getAll().stream()
                .map(LogEntry::getMessage).filter(m -> m.contains("Content Security Policy")).toList();
        assertThat(violations).isEmpty();
    }

    @Test
    @Order(9)
    void aTransformationIsTriedOnTheDestinationsPageAndNothingIsSent() throws Exception {
        int before = receiver.requestCount();
        show("destinations");
        byId("tt-destination").sendKeys("audit-log");
        byId("tt-source").sendKeys("demo");
        byId("tt-body").sendKeys("{\"a\":1}");
        byId("tt-run").click();
        waiting().until(d -> byId("tt-request").isDisplayed());
        assertThat(byId("tt-request").getText()).startsWith("PUT " + receiver.uri("/in")).contains("x-src: demo")
                .endsWith("{\"a\":1}");
        byId("tt-destination").clear();
        byId("tt-destination").sendKeys("app");
        byId("tt-run").click();
        waiting().until(d -> byId("tt-result").getText().startsWith("409"));
        assertThat(byId("tt-result").getText()).contains("no_transform");
        assertThat(receiver.requestCount()).isEqualTo(before);
        screenshot("transform-test");
    }
}
