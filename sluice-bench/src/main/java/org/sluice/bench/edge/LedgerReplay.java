package org.sluice.bench.edge;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.sluice.edge.store.DeliveryLedger;
import org.sluice.edge.store.DeliveryRow;
import org.sluice.edge.store.HookPage;
import org.sluice.edge.store.HookStore;
import org.sluice.edge.store.PendingHook;
import org.sluice.edge.store.StoredHook;
import org.sluice.edge.store.rocks.RocksHookStore;

/**
 * What the store allows a backlog replay, with no network and no dispatcher: the ceiling
 * of the per-row delivery ledger on this machine, beside a plain read of the same hooks in
 * commit order.
 *
 * <p>It commits {@code hooks} hooks of {@code bodyBytes} bytes (256 per commit, each with a
 * pending delivery to one destination) into a fresh store in {@code dir}, then, on one
 * thread:
 * <ol>
 *   <li><b>read in commit order:</b> every hook, a page of 256 at a time
 *       ({@link HookStore#after}), which is what a replay that did not go row by row would
 *       read;</li>
 *   <li><b>ledger cycle:</b> what the dispatcher does per delivery, 100 rows at a time: the
 *       due scan ({@link DeliveryLedger#dueBy}), the hook read at the number the scan gave
 *       ({@link HookStore#getForDelivery(List, long[])}, the pass's hooks together) and the "delivered" answers in one write
 *       ({@link DeliveryLedger#apply}, each transition taking the row as the scan read it,
 *       {@link DeliveryLedger.Transition#seenAt}); with {@code claim}, also a claim of each row in a
 *       write of its own before the answers, and the hook read by id (what the dispatcher
 *       did before it held the rows whose attempt is out in memory). It fails when a transition does not apply or
 *       a row is left pending.</li>
 * </ol>
 * Prints rows per second for each and the ledger cycle's microseconds per row by step.
 *
 * <p>Usage: {@code LedgerReplay dir hooks bodyBytes [claim]}
 */
public final class LedgerReplay {

    private static final int COMMIT = 256;
    private static final int PASS = 100;

    private LedgerReplay() {
    }

    public static void main(String[] args) throws IOException {
        Path parent = Path.of(args[0]);
        int hooks = Integer.parseInt(args[1]);
        int bodyBytes = Integer.parseInt(args[2]);
        boolean claimRows = args.length >= 4 && args[3].equals("claim");
        Path dir = Files.createTempDirectory(parent, "ledger-replay");
        try (HookStore store = RocksHookStore.open(dir)) {
            byte[] body = new byte[bodyBytes];
            Arrays.fill(body, (byte) 'x');
            long t0 = System.nanoTime();
            for (int i = 0; i < hooks; i += COMMIT) {
                List<PendingHook> batch = new ArrayList<>();
                for (int j = i; j < Math.min(hooks, i + COMMIT); j++) {
                    Map<String, String> headers = new LinkedHashMap<>();
                    headers.put("Content-Type", "application/json");
                    headers.put("X-Event-Id", "evt-" + j);
                    batch.add(new PendingHook("bench", "bench", "evt-" + j, System.currentTimeMillis(), headers, body)
                            .withDestinations(List.of("bus")));
                }
                store.commit(batch);
            }
            System.out.printf("ledger replay: committed=%d in_ms=%d body_bytes=%d%n", hooks,
                    (System.nanoTime() - t0) / 1_000_000, bodyBytes);

            long r0 = System.nanoTime();
            int read = 0;
            String after = null;
            do {
                HookPage page = store.after(after, COMMIT);
                read += page.hooks().size();
                after = page.next();
            } while (after != null);
            double readSecs = (System.nanoTime() - r0) / 1e9;
            if (read != hooks) {
                throw new IllegalStateException("read " + read + " hooks in commit order, committed " + hooks);
            }
            System.out.printf("ledger replay: commit_order_read rows=%d rows_per_s=%.0f%n", read, read / readSecs);

            DeliveryLedger ledger = store.deliveries();
            long scan = 0;
            long hookRead = 0;
            long claim = 0;
            long answer = 0;
            int done = 0;
            long bodyBytesRead = 0;
            long c0 = System.nanoTime();
            while (true) {
                long now = System.currentTimeMillis();
                long s0 = System.nanoTime();
                DeliveryLedger.Due due = ledger.dueBy("bus", now, PASS);
                List<DeliveryRow> rows = due.rows();
                if (rows.isEmpty()) {
                    break;
                }
                long s1 = System.nanoTime();
                if (claimRows) {
                    for (DeliveryRow r : rows) { // as the dispatcher read before it held rows: by id
                        bodyBytesRead += store.getForDelivery(r.hookId()).orElseThrow().body().length;
                    }
                } else { // as the dispatcher reads: the pass's hooks together, at the numbers the scan gave
                    for (StoredHook h : store.getForDelivery(rows.stream().map(DeliveryRow::hookId).toList(), due.seqs())) {
                        bodyBytesRead += h.body().length;
                    }
                }
                long s2 = System.nanoTime();
                if (claimRows) {
                    List<DeliveryLedger.Transition> claims = new ArrayList<>();
                    for (DeliveryRow r : rows) {
                        claims.add(DeliveryLedger.Transition.claim(r, now + 60_000));
                    }
                    requireAll(ledger.apply(claims), "claim");
                }
                long s3 = System.nanoTime();
                List<DeliveryLedger.Transition> delivered = new ArrayList<>();
                for (int i = 0; i < rows.size(); i++) {
                    DeliveryLedger.Transition t = DeliveryLedger.Transition.delivered(rows.get(i), null, now);
                    // as the dispatcher records an answer: the row as the scan read it (a claim changed it)
                    delivered.add(claimRows ? t : t.seenAt(due.seqs()[i], due.writes()));
                }
                requireAll(ledger.apply(delivered), "delivered");
                long s4 = System.nanoTime();
                scan += s1 - s0;
                hookRead += s2 - s1;
                claim += s3 - s2;
                answer += s4 - s3;
                done += rows.size();
            }
            double cycleSecs = (System.nanoTime() - c0) / 1e9;
            long pending = ledger.counts("bus", System.currentTimeMillis()).pending();
            if (done != hooks || pending != 0 || bodyBytesRead != (long) hooks * bodyBytes) {
                throw new IllegalStateException("delivered " + done + " of " + hooks + ", " + pending
                        + " left pending, " + bodyBytesRead + " body bytes read");
            }
            System.out.printf("ledger replay: ledger_cycle%s rows=%d rows_per_s=%.0f us_per_row scan=%.1f hook_read=%.1f "
                            + "claim=%.1f answer=%.1f%n", claimRows ? "_with_claims" : "", done, done / cycleSecs, scan / 1e3 / done, hookRead / 1e3 / done,
                    claim / 1e3 / done, answer / 1e3 / done);
        } finally {
            BenchFiles.deleteTree(dir);
        }
    }

    private static void requireAll(boolean[] applied, String what) {
        for (boolean a : applied) {
            if (!a) {
                throw new IllegalStateException("a " + what + " transition did not apply");
            }
        }
    }
}
