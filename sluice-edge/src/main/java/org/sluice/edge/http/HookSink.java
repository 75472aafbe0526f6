package org.sluice.edge.http;

import java.util.concurrent.CompletableFuture;
import org.sluice.edge.store.CommitResult;
import org.sluice.edge.store.DuplicateLookup;
import org.sluice.edge.store.PendingHook;

/** Where admitted hooks go: the group-commit intake in front of the store. Thread-safe. */
public interface HookSink {

    /** The id of the committed hook with this (tenant, source, key) inside the dedupe window, or null. */
    String findDuplicate(String tenant, String source, String dedupeKey);

    /**
     * {@link #findDuplicate}, answered from memory alone, for a caller that must not wait (an
     * event loop): {@link DuplicateLookup#NEEDS_DISK} when the answer would need a disk read.
     * The default never answers.
     */
    default DuplicateLookup findDuplicateInMemory(String tenant, String source, String dedupeKey) {
        return DuplicateLookup.NEEDS_DISK;
    }

    /**
     * Commits the hook. The future completes on an intake writer thread once the hook's batch
     * is written, on the intake's deadline thread when its batch had not started by the
     * commit deadline ({@code OVERLOAD}), or is complete on return when the intake's queue is
     * full or closing ({@code OVERLOAD}); the caller continues on a thread of its own.
     */
    CompletableFuture<CommitResult> submit(PendingHook hook);

    /**
     * Why the node should not take hooks now, or null when it is ready ({@code /readyz}):
     * {@code store_closed}, {@code store_failing} (its writes fail), {@code log_unavailable}
     * (under {@code store.kind: kafka}: the fleet's log cannot acknowledge writes now) or
     * {@code intake_partition_down} (an intake writer is down and not yet restarted).
     */
    String notReadyReason();

    /**
     * True while the store is at or past {@code store.max_bytes}: a new hook is then answered
     * {@code 503 store_full} before anything is charged or committed. Cheap (a cached figure):
     * it is asked once per hook. False when no bound is set.
     */
    default boolean storeFull() {
        return false;
    }
}
