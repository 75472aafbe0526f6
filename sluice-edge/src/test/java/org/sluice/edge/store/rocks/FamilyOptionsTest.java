package org.sluice.edge.store.rocks;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.edge.store.DeliveryRow;
import org.sluice.edge.store.Hooks;

/**
 * The column families' options as RocksDB applies them (read back from the OPTIONS file
 * RocksDB writes at open), and the ledger's state after writes that land far from the
 * insert hint, on a real RocksDB in a temp dir.
 */
class FamilyOptionsTest {

    private static final long T0 = 1_800_000_000_000L;
    private static final String HINT = "memtable_insert_with_hint_prefix_extractor";

    @TempDir
    Path dir;

    /** Per column family, the value of {@code option} in the newest OPTIONS file of {@code dir}. */
    private static Map<String, String> optionByFamily(Path dir, String option) throws IOException {
        Path newest;
        try (Stream<Path> files = Files.list(dir)) {
            newest = files.filter(p -> p.getFileName().toString().startsWith("OPTIONS-"))
                    .max(Comparator.comparingLong(p -> Long.parseLong(p.getFileName().toString().substring(8))))
                    .orElseThrow();
        }
        Map<String, String> byFamily = new LinkedHashMap<>();
        String family = null;
        for (String line : Files.readAllLines(newest)) {
            String t = line.trim();
            if (t.startsWith("[")) {
                family = t.startsWith("[CFOptions \"") ? t.substring(12, t.length() - 2) : null;
            } else if (family != null && t.startsWith(option + "=")) {
                byFamily.put(family, t.substring(option.length() + 1));
            }
        }
        return byFamily;
    }

    @Test
    void onlyTheFamiliesWrittenInKeyOrderInsertWithAHintAndTheyStillCompressWithLz4() throws IOException {
        RocksHookStore.open(dir).close();

        Map<String, String> hints = optionByFamily(dir, HINT);
        assertThat(hints).containsKeys("default", RocksFamilies.CF_DEDUPE, RocksFamilies.CF_DUE);
        hints.forEach((family, hint) -> assertThat(hint).as(family)
                .isEqualTo(FamilyOptions.IN_ORDER.contains(family) ? FamilyOptions.HINT_PREFIX : "nullptr"));
        assertThat(hints.keySet()).containsAll(FamilyOptions.IN_ORDER);
        assertThat(optionByFamily(dir, "compression")).hasSameSizeAs(hints)
                .allSatisfy((family, compression) -> assertThat(compression).as(family).isEqualTo("kLZ4Compression"));
    }

    @Test
    void theOptionsHoldAcrossAReopenOfAnExistingStore() throws IOException {
        try (RocksHookStore store = RocksHookStore.open(dir)) {
            store.commit(List.of(Hooks.hook("k").withDestinations(List.of("a"))));
        }
        RocksHookStore.open(dir).close();
        assertThat(optionByFamily(dir, HINT)).containsEntry(RocksFamilies.CF_DUE, FamilyOptions.HINT_PREFIX)
                .containsEntry(RocksFamilies.CF_HOOK_IDS, FamilyOptions.HINT_PREFIX)
                .containsEntry(RocksFamilies.CF_DEDUPE, "nullptr");
    }

    /**
     * Answers recorded in an order far from the keys' (shuffled across hooks and
     * destinations, with retries that move rows to later due times in between) leave the
     * ledger as they would in key order: every row delivered or pending as recorded, the
     * indexes consistent ({@code verify}), and the same after a reopen, which reads the
     * families back from their write-ahead log.
     */
    @Test
    void answersRecordedOutOfKeyOrderLeaveEveryRowAndIndexConsistent() {
        AtomicLong wall = new AtomicLong(T0);
        RocksHookStore.Options options = RocksHookStore.Options.defaults().withWallClock(wall::get);
        List<String> destinations = List.of("a", "bb", "ccc");
        int hooks = 600;
        try (RocksHookStore store = RocksHookStore.open(dir, options)) {
            for (int i = 0; i < hooks; i++) {
                wall.set(T0 + i);
                store.commit(List.of(Hooks.hook("k" + i).withDestinations(destinations)));
            }
            RocksDeliveryLedger ledger = store.deliveries();
            List<DeliveryRow> rows = new ArrayList<>();
            for (String d : destinations) {
                rows.addAll(ledger.due(d, Long.MAX_VALUE, hooks));
            }
            assertThat(rows).hasSize(hooks * destinations.size());
            Collections.shuffle(rows, new Random(7));
            int retried = 0;
            for (int i = 0; i < rows.size(); i++) {
                DeliveryRow row = rows.get(i);
                if (i % 5 == 0) {
                    assertThat(ledger.recordAttempt(row, 503, "unavailable", T0 + 1_000_000 - i, T0 + hooks)).isTrue();
                    retried++;
                } else {
                    assertThat(ledger.markDelivered(row, 200, T0 + hooks)).isTrue();
                }
            }
            assertThat(LedgerChecks.verify(ledger)).isEmpty();
            long pending = 0;
            for (String d : destinations) {
                pending += ledger.counts(d, T0 + hooks).pending();
                assertThat(ledger.due(d, T0 + 1_000_000 - rows.size(), hooks)).isEmpty();
            }
            assertThat(pending).isEqualTo(retried);
        }
        try (RocksHookStore store = RocksHookStore.open(dir, options)) {
            RocksDeliveryLedger ledger = store.deliveries();
            assertThat(LedgerChecks.verify(ledger)).isEmpty();
            long due = 0;
            for (String d : destinations) {
                due += ledger.due(d, Long.MAX_VALUE, hooks).size();
            }
            assertThat(due).as("the retried fifth of the rows").isEqualTo(hooks * destinations.size() / 5);
        }
    }
}
