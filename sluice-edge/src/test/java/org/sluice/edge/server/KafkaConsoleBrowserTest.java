package org.sluice.edge.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.sluice.core.Clock;
import org.sluice.edge.delivery.KafkaBrokersExtension;
import org.sluice.testkit.Eventually;
import org.sluice.testkit.HookReceiver;

/**
 * The console's hook view on {@code store.kind: kafka} (docs/fleet-log.md, "A hook's
 * deliveries"): a node answers for a hook's deliveries with what it holds, so the page says
 * which node answered and from what, and never "no deliveries" when the node merely knows
 * nothing of them. Real parts: a broker of Kafka's KRaft test kit, a Sluice node in this JVM,
 * a real HTTP receiver, headless Chromium. Tagged {@code slow}: a broker, two boots and a
 * browser take most of a minute.
 */
@Tag("slow")
class KafkaConsoleBrowserTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration LONG_WAIT = Duration.ofSeconds(90);

    @RegisterExtension
    static final KafkaBrokersExtension brokers = KafkaBrokersExtension.brokers(1);

    @TempDir
    Path dir;

    private TestEdge node(HookReceiver receiver) {
        String yaml = """
                node: {id: a, data_dir: "%s"}
                admin: {listen: "127.0.0.1:0"}
                http: {listen: "127.0.0.1:0"}
                sources:
                  ok: {tenant: t, verify: {scheme: none}, deliver_to: [app]}
                  lost: {tenant: t, verify: {scheme: none}, deliver_to: [gone]}
                destinations:
                  app: {url: "%s"}
                  gone: {url: "%s"}
                store:
                  kind: kafka
                  kafka: {bootstrap_servers: ["%s"], topic_prefix: console, partitions: 2, replication_factor: 1, timeout_ms: 5000}
                """.formatted(dir.resolve("a"), receiver.uri("/in"), receiver.uri("/gone"), brokers.bootstrapServers());
        TestEdge edge = TestEdge.startWhole(dir, yaml, b -> b.clock(Clock.system()));
        TestEdge.await(() -> Http.get(edge.address, "/readyz").status() == 200);
        return edge;
    }

    @Test
    void theHookViewSaysWhichNodeAnsweredAndFromWhat() throws Exception {
        try (HookReceiver receiver = HookReceiver.start();
             ConsoleBrowser console = ConsoleBrowser.open(dir, "KafkaConsoleBrowserTest")) {
            receiver.answerWhen(r -> r.path().startsWith("/gone"), HookReceiver.Answer.status(410));
            String delivered;
            String dead;
            try (TestEdge a = node(receiver)) {
                delivered = KafkaNodes.accept(a, "ok", 1);
                dead = KafkaNodes.accept(a, "lost", 2);
                Eventually.until("both deliveries finished", LONG_WAIT,
                        () -> state(a, delivered).equals("delivered") && state(a, dead).equals("dead"));
                signIn(console, a);

                open(console, a, delivered);
                assertThat(console.byId("hook-deliveries-from").getText())
                        .isEqualTo("Read on node a, which holds this hook's deliveries.");
                assertThat(console.byId("hook-deliveries").getText()).contains("app").contains("delivered");
                assertThat(console.byId("hook-deliveries-none").isDisplayed()).isFalse();
            }
            // a restart empties the working set: the delivered hook is known to no node any more,
            // and the dead one only through the fleet's dead letters
            try (TestEdge a = node(receiver)) {
                Eventually.until("the dead letter indexed", LONG_WAIT,
                        () -> KafkaNodes.deadLetterIds(dir, a).contains(dead));
                assertThat(hook(a, delivered).get("deliveries").isNull()).isTrue();
                signIn(console, a);

                open(console, a, delivered);
                assertThat(console.byId("hook-deliveries-from").getText())
                        .startsWith("Node a knows nothing of this hook's deliveries");
                assertThat(console.byId("hook-deliveries-none").isDisplayed())
                        .as("'no deliveries' would be untrue: another node may hold them").isFalse();
                assertThat(console.byId("hook-deliveries").isDisplayed()).isFalse();

                open(console, a, dead);
                assertThat(console.byId("hook-deliveries-from").getText()).isEqualTo(
                        "Node a holds no delivery of this hook; shown are its dead letters, as the fleet keeps them.");
                assertThat(console.byId("hook-deliveries").getText()).contains("gone").contains("dead");
            }
        }
    }

    private void signIn(ConsoleBrowser console, TestEdge edge) throws Exception {
        String token = Files.readString(dir.resolve("a").resolve("admin.token")).strip();
        console.logIn(adminOf(edge), token);
    }

    private static String adminOf(TestEdge edge) {
        return "http://127.0.0.1:" + edge.server.adminAddress().getPort();
    }

    /** Opens the hook's view from the Hooks page, by the row that shows its id. */
    private static void open(ConsoleBrowser console, TestEdge edge, String id) {
        console.show(adminOf(edge), "hooks");
        console.waiting().until(d -> d.findElements(By.cssSelector("#hooks-table tbody tr")).stream()
                .anyMatch(tr -> tr.getText().contains(id)));
        WebElement row = console.driver().findElements(By.cssSelector("#hooks-table tbody tr")).stream()
                .filter(tr -> tr.getText().contains(id)).findFirst().orElseThrow();
        row.click();
        console.waiting().until(d -> console.byId("hook-detail").isDisplayed()
                && console.byId("hook-id").getText().equals(id)
                && console.byId("hook-deliveries-from").isDisplayed());
    }

    private JsonNode hook(TestEdge edge, String id) {
        try {
            Http.Response r = KafkaNodes.admin(dir, edge, "GET", "/v1/hooks/" + id, null);
            assertThat(r.status()).as(r.body()).isEqualTo(200);
            return JSON.readTree(r.body());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** The state of the hook's one delivery as this node shows it, or "none" while it shows none. */
    private String state(TestEdge edge, String id) {
        JsonNode deliveries = hook(edge, id).get("deliveries");
        return deliveries == null || deliveries.isNull() || deliveries.isEmpty() ? "none"
                : deliveries.get(0).get("state").asText();
    }
}
