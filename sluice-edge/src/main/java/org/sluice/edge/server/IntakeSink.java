package org.sluice.edge.server;

import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.sluice.edge.http.HookSink;
import org.sluice.edge.intake.Intake;
import org.sluice.edge.store.CommitResult;
import org.sluice.edge.store.DuplicateLookup;
import org.sluice.edge.store.HookLog;
import org.sluice.edge.store.HookStore;
import org.sluice.edge.store.PendingHook;

/**
 * The {@link HookSink} of a running node: duplicates are looked up in the hook log (the
 * store, or under {@code store.kind: kafka} the fleet's log, which defers to the fleet's
 * claim), hooks go to the intake, and readiness is the store's, the log's and the intake's
 * (and the store's size against {@code store.max_bytes}).
 *
 * @param store       the node's store (readiness, size)
 * @param log         where duplicates are looked up: the store, or the fleet's log
 * @param logProblem  null while the fleet's log can take hooks, else why not; a null supplier
 *                    under {@code store.kind: rocksdb}
 * @param intake      where hooks are submitted
 * @param epochMillis the wall clock a duplicate's window is measured with
 * @param size        the store's size against {@code store.max_bytes}
 */
record IntakeSink(HookStore store, HookLog log, Supplier<String> logProblem, Intake intake, LongSupplier epochMillis,
                  StoreSize size) implements HookSink {

    @Override
    public String findDuplicate(String tenant, String source, String dedupeKey) {
        return log.findDuplicate(tenant, source, dedupeKey, epochMillis.getAsLong()).orElse(null);
    }

    @Override
    public DuplicateLookup findDuplicateInMemory(String tenant, String source, String dedupeKey) {
        return log.findDuplicateInMemory(tenant, source, dedupeKey, epochMillis.getAsLong());
    }

    @Override
    public CompletableFuture<CommitResult> submit(PendingHook hook) {
        return intake.submit(hook);
    }

    @Override
    public String notReadyReason() {
        if (!store.isOpen()) {
            return "store_closed";
        }
        if (!store.isHealthy()) {
            return "store_failing";
        }
        if (logProblem != null && logProblem.get() != null) {
            return "log_unavailable";
        }
        if (intake.partitionsDown() > 0) {
            return "intake_partition_down";
        }
        if (size.full()) {
            return "store_full";
        }
        return null;
    }

    @Override
    public boolean storeFull() {
        return size.full();
    }
}
