package org.sluice.edge.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.testkit.ChildJvm;
import org.sluice.testkit.Eventually;
import org.sluice.testkit.HookReceiver;

/**
 * At least once across {@code kill -9}: the real server runs in a child JVM and delivers to
 * a real receiver in this JVM while eight senders post hooks. The server is SIGKILLed in
 * the middle of that storm and started again on the same data dir. Every hook that got a
 * {@code 202} must then reach the receiver, and the only hooks it may see twice are those
 * whose attempt was in flight at the crash: at most {@code max_in_flight} of them.
 */
class DeliveryCrashTest {

    static final int MAX_IN_FLIGHT = 8;
    static final int ACKS_BEFORE_KILL = 400;
    static final int DELIVERIES_BEFORE_KILL = 100;

    @TempDir
    Path dir;

    @Test
    void killNineDuringADeliveryStormLosesNoDeliveryAndRepeatsOnlyWhatWasInFlight() throws Exception {
        try (HookReceiver receiver = HookReceiver.start()) {
            // a short delay keeps attempts in flight when the kill lands
            receiver.defaultAnswer(HookReceiver.Answer.status(200).withDelay(Duration.ofMillis(3)));
            Path config = dir.resolve("sluice.yaml");
            Files.writeString(config, """
                    node: {id: crash, data_dir: "%s"}
                    admin: {listen: "127.0.0.1:0"}
                    http: {listen: "127.0.0.1:0"}
                    destinations:
                      app: {url: "%s", max_in_flight: %d, timeout_ms: 2000}
                    sources:
                      s: {tenant: t, verify: {scheme: none}, dedupe: {header: X-Event-Id}, deliver_to: [app]}
                    """.formatted(dir.resolve("data"), receiver.uri("/in"), MAX_IN_FLIGHT));

            Map<String, String> acked = HookStorm.sendUntilKilled(config, "a delivery storm under way", Eventually.DEFAULT_BOUND,
                    acks -> acks >= ACKS_BEFORE_KILL && receiver.requestCount() >= DELIVERIES_BEFORE_KILL);
            int beforeRestart = receiver.requestCount();

            Set<String> ackedIds = new HashSet<>(acked.values());
            try (ChildJvm again = CrashSafetyTest.startServer(config)) {
                CrashSafetyTest.addressOf(again);
                Eventually.until("every acknowledged hook delivered", Duration.ofSeconds(120),
                        () -> receivedIds(receiver.received()).keySet().containsAll(ackedIds));
                again.terminate();
                again.waitFor(Duration.ofSeconds(60));
            }

            Map<String, Integer> times = receivedIds(receiver.received());
            Set<String> missing = new HashSet<>(ackedIds);
            missing.removeAll(times.keySet()); // a set difference: AssertJ's containsAll scans per id
            assertThat(missing).as("202'd hooks not delivered (of %d)", ackedIds.size()).isEmpty();
            int repeats = times.values().stream().mapToInt(n -> n - 1).sum();
            assertThat(repeats).as("hooks seen twice (delivered %d before the kill, %d in all)", beforeRestart,
                    receiver.requestCount()).isLessThanOrEqualTo(MAX_IN_FLIGHT);
            assertThat(times.values()).as("no hook more than twice").allMatch(n -> n <= 2);
        }
    }

    /** {@code webhook-id} to how many times it arrived. */
    private static Map<String, Integer> receivedIds(List<HookReceiver.Received> received) {
        Map<String, Integer> out = new HashMap<>();
        for (HookReceiver.Received r : received) {
            out.merge(r.header("webhook-id"), 1, Integer::sum);
        }
        return out;
    }
}
