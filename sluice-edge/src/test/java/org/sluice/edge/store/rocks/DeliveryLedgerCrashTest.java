package org.sluice.edge.store.rocks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.edge.store.DeliveryRow;
import org.sluice.edge.store.HookPage;
import org.sluice.edge.store.StoredHook;
import org.sluice.testkit.ChildJvm;

/**
 * Crash safety of the delivery ledger across processes: a child JVM commits hooks to two
 * destinations and marks their deliveries while this process kills it with SIGKILL; the
 * reopened store must still hold every acknowledged hook's deliveries.
 *
 * <p>What the design guarantees, and so what is asserted: (1) every acknowledged hook has
 * one row per destination it named, pending, delivered or dead, none missing; (2) the
 * ledger's indexes and counters are consistent with its rows (nothing half-written); (3) a
 * mark that returned before a later fsynced commit started survives (the write-ahead log
 * is recovered as a prefix and that commit's fsync covered it). Marks written after the
 * last fsync are not asserted: they may be lost on a power failure, and then the attempt
 * is simply made again.
 */
class DeliveryLedgerCrashTest {

    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    @Test
    void sigkillWhileDeliveringLosesNoPendingRowOfAnAcknowledgedHook() {
        List<String> lines;
        try (ChildJvm child = ChildJvm.builder(LedgerChild.class).jvmArgs("-Xmx256m").args(dir.toString(), "280").start()) {
            child.awaitLine(l -> l.equals("ready"), WAIT);
            child.awaitLine(l -> l.equals("committed 60"), WAIT);
            assertThat(ProcessHandle.of(child.pid()).orElseThrow().destroyForcibly()).isTrue();
            assertThat(child.waitFor(WAIT)).isEqualTo(137);
            lines = child.stdoutLines();
        }
        assertThat(lines.size()).as("no line fell out of the child's output buffer").isLessThan(ChildJvm.MAX_LINES);

        Set<String> acked = new LinkedHashSet<>();
        Set<Integer> committed = new HashSet<>();
        Map<String, String> finishedMarks = new HashMap<>(); // "id dest" -> state, for marks covered by a later fsync
        Map<String, String> pendingMarks = new HashMap<>();
        for (String line : lines) {
            String[] p = line.split(" ");
            if (p[0].equals("committed")) {
                committed.add(Integer.parseInt(p[1]));
            }
        }
        for (String line : lines) {
            String[] p = line.split(" ");
            switch (p[0]) {
                case "acked" -> acked.add(p[1]);
                case "delivered", "dead" -> pendingMarks.put(p[1] + " " + p[2], p[0]);
                case "start" -> {
                    if (committed.contains(Integer.parseInt(p[1]))) { // an fsynced write began after these marks returned
                        finishedMarks.putAll(pendingMarks);
                        pendingMarks.clear();
                    }
                }
                default -> {
                }
            }
        }
        assertThat(acked).hasSizeGreaterThanOrEqualTo(60 * LedgerChild.BATCH);
        assertThat(lines).as("killed mid-load").doesNotContain("done");
        assertThat(finishedMarks).as("some marks were covered by a later commit").isNotEmpty();

        try (RocksHookStore store = RocksHookStore.open(dir)) {
            RocksDeliveryLedger ledger = store.deliveries();
            assertThat(LedgerChecks.verify(ledger)).isEmpty();
            for (String id : acked) {
                List<DeliveryRow> rows = ledger.deliveries(id);
                assertThat(rows).as("rows of acknowledged hook %s", id).extracting(DeliveryRow::destination)
                        .containsExactlyElementsOf(LedgerChild.DESTINATIONS);
            }
            for (Map.Entry<String, String> mark : finishedMarks.entrySet()) {
                String[] idDest = mark.getKey().split(" ");
                DeliveryRow row = ledger.deliveries(idDest[0]).stream()
                        .filter(r -> r.destination().equals(idDest[1])).findFirst().orElseThrow();
                assertThat(row.state().code()).as("mark %s of %s", mark.getValue(), mark.getKey()).isEqualTo(mark.getValue());
            }
            // atomic commits: every stored hook, acknowledged or caught mid-commit, has both rows
            String after = null;
            do {
                HookPage page = store.after(after, 500);
                for (StoredHook h : page.hooks()) {
                    assertThat(ledger.deliveries(h.id())).hasSize(LedgerChild.DESTINATIONS.size());
                }
                after = page.next();
            } while (after != null);
        }
    }
}
