package org.sluice.edge.store.rocks;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.sluice.edge.store.CommitResult;
import org.sluice.edge.store.DeliveryRow;
import org.sluice.edge.store.Hooks;
import org.sluice.edge.store.PendingHook;

/**
 * Child process for {@link DeliveryLedgerCrashTest}: one thread commits batches of hooks
 * to destinations {@code a} and {@code b} (fsynced), and one dispatcher thread per
 * destination works the due rows as a delivery loop would: a failed attempt (retried at
 * once), delivered, or dead. Runs until killed or until it has committed {@code batches}
 * batches (a cap that keeps the output under {@code ChildJvm.MAX_LINES}).
 *
 * <p>Prints {@code start <n>} before batch n's commit, {@code acked <id>} per accepted
 * hook and {@code committed <n>} after it returned; {@code delivered <id> <dest>} and
 * {@code dead <id> <dest>} after such a mark returned true. args: data dir, batches.
 */
public final class LedgerChild {

    static final List<String> DESTINATIONS = List.of("a", "b");
    static final int BATCH = 8;

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        int batches = Integer.parseInt(args[1]);
        RocksHookStore store = RocksHookStore.open(dir);
        RocksDeliveryLedger ledger = store.deliveries();
        for (String d : DESTINATIONS) {
            Thread dispatcher = new Thread(() -> dispatch(ledger, d), "dispatcher-" + d);
            dispatcher.setDaemon(true);
            dispatcher.start();
        }
        System.out.println("ready");
        for (int n = 1; n <= batches; n++) {
            List<PendingHook> batch = new ArrayList<>(BATCH);
            for (int i = 0; i < BATCH; i++) {
                batch.add(Hooks.hook("k" + n + "." + i).withDestinations(DESTINATIONS));
            }
            System.out.println("start " + n);
            List<CommitResult> results = store.commit(batch);
            StringBuilder out = new StringBuilder();
            for (CommitResult r : results) {
                out.append("acked ").append(r.id()).append('\n');
            }
            out.append("committed ").append(n);
            System.out.println(out);
        }
        System.out.println("done");
        Thread.currentThread().join(); // until killed
    }

    private static void dispatch(RocksDeliveryLedger ledger, String destination) {
        while (true) {
            long now = System.currentTimeMillis();
            List<DeliveryRow> due = ledger.due(destination, now, 16);
            for (DeliveryRow row : due) {
                int h = Math.floorMod((row.hookId() + destination).hashCode(), 15);
                if (row.attempts() == 0 && h % 3 == 0) {
                    ledger.recordAttempt(row, 503, null, now, now); // comes due again at once
                } else if (h % 5 == 0) {
                    if (ledger.markDead(row, "max_attempts", true, 500, null, now)) {
                        System.out.println("dead " + row.hookId() + " " + destination);
                    }
                } else if (ledger.markDelivered(row, 200, now)) {
                    System.out.println("delivered " + row.hookId() + " " + destination);
                }
            }
            if (due.isEmpty()) {
                try {
                    Thread.sleep(1);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }
}
