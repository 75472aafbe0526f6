package org.sluice.edge.intake;

import java.util.concurrent.CompletableFuture;
import org.sluice.edge.store.CommitResult;
import org.sluice.edge.store.PendingHook;

/** A hook waiting in a partition's queue: what it reserved, when, and whom to answer. */
final class QueuedHook {
    final PendingHook hook;
    final long bytes;
    final long enqueuedNanos;
    final CompletableFuture<CommitResult> future = new CompletableFuture<>();

    QueuedHook(PendingHook hook, long bytes, long enqueuedNanos) {
        this.hook = hook;
        this.bytes = bytes;
        this.enqueuedNanos = enqueuedNanos;
    }
}
