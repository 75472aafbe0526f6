package org.sluice.edge.store;

import java.util.List;
import java.util.Optional;

/**
 * The hook log: committing accepted hooks with their dedupe keys and pending deliveries,
 * and reading them back by id or in commit order. What the intake, the admin API's hook
 * reads and the dispatcher's hook reads need.
 *
 * <p>Every hook gets a commit sequence number and a UUIDv7 id, both in commit order. An
 * answered commit is durable. Readers that walk in commit order never return a hook while a
 * lower number may still be being written, so paging returns every hook exactly once.
 *
 * <p>Implementations are thread-safe. The RocksDB one is {@code RocksHookStore}.
 */
public interface HookLog {

    /** Body bytes one page holds at most (it always holds at least one hook): 16 MiB. */
    long DEFAULT_PAGE_BYTES = 16L << 20;

    // ================================================================ commit

    /**
     * Commits a batch: ONE atomic, durable write holding every new hook, its id-index
     * entry, its dedupe entries and a pending delivery row per destination it names (a
     * duplicate schedules nothing). Returns one result per hook, in order: ACCEPTED with
     * the new id, or DUPLICATE with the id of the hook already committed within the
     * dedupe TTL (or of the first copy of the key earlier in this batch).
     *
     * @throws HookStoreException when the write fails or the store is closed; then nothing in
     *                            the batch is acknowledged
     */
    List<CommitResult> commit(List<PendingHook> batch);

    /**
     * Who may claim new deliveries as they are committed ({@link CommitClaims}), or null for
     * nobody (every delivery is written due at once). A dispatcher sets itself while it runs.
     */
    void setCommitClaims(CommitClaims claims);

    /**
     * The body bytes of {@code tenant}'s hooks in this store, for its
     * {@code rate_limits.*.max_stored_bytes} share: from memory, no I/O, on any thread. A
     * store that does not count them answers 0 (the default: the Kafka store kind has no
     * share yet); the RocksDB store counts them when opened to.
     */
    default long storedBytes(String tenant) {
        return 0L;
    }

    // ================================================================ dedupe

    /** How long a committed dedupe key is remembered, in milliseconds. */
    long dedupeTtlMillis();

    /**
     * The id of the hook committed with this (tenant, source, key) whose dedupe entry has
     * not expired at {@code nowMillis}, if any. May wait for a read; never for a commit.
     */
    Optional<String> findDuplicate(String tenant, String source, String key, long nowMillis);

    /**
     * {@link #findDuplicate}, answered from memory alone, for a caller that must not wait
     * (an event loop): {@link DuplicateLookup#NEEDS_DISK} when the answer would need a disk
     * read, or when the store is busy reopening, and then the caller asks {@link #findDuplicate}.
     */
    DuplicateLookup findDuplicateInMemory(String tenant, String source, String key, long nowMillis);

    /**
     * Removes at most {@code maxEntries} dedupe entries that expired at or before
     * {@code nowMillis}, oldest expiry first, and returns how many expiry records it
     * processed (0: nothing left to sweep). An entry renewed by a later commit of the
     * same key is kept. Not durable on its own: a sweep lost in a crash is simply redone.
     */
    int sweepDedupe(int maxEntries, long nowMillis);

    // ================================================================ reading

    /** The committed hook with this id, or empty (also for a string that is not a UUID). */
    Optional<StoredHook> get(String id);

    /**
     * The hook with this id for the dispatcher, which is about to send it: from memory when
     * its commit kept it there (recent hooks with pending deliveries, bounded), else as
     * {@link #get}. Unlike {@link #get}, the body array may be the one committed and shared
     * with other readers of this method: callers must not modify it.
     */
    default Optional<StoredHook> getForDelivery(String id) {
        return getForDelivery(id, -1);
    }

    /**
     * As {@link #getForDelivery(String)}, for a hook whose commit sequence number the caller
     * has ({@code seq}, from {@link DeliveryLedger.Due#seqs()}; -1 when it has none): on a
     * miss of the memory, the hook is read at that number, without looking its id up.
     */
    Optional<StoredHook> getForDelivery(String id, long seq);

    /**
     * As {@link #getForDelivery(String, long)} for many hooks at once, the rows of one due
     * scan ({@code ids.get(i)} committed as {@code seqs[i]}, -1 when unknown). Returns the
     * hooks at the same indexes, null where an id is malformed or its hook is gone.
     */
    StoredHook[] getForDelivery(List<String> ids, long[] seqs);

    /**
     * How many of {@link #getForDelivery}'s reads found the hook in memory ({@code true}) or
     * read it from the store ({@code false}), since the store opened
     * ({@code sluice_delivery_hook_reads_total{from="memory"|"store"}}).
     */
    long deliveryReads(boolean fromMemory);

    /**
     * Up to {@code limit} hooks committed after the hook {@code afterId} (from the first
     * hook when null), in commit order; paging with {@link HookPage#next()} returns every
     * hook exactly once. A page holds at most {@link #DEFAULT_PAGE_BYTES} of bodies.
     *
     * @throws IllegalArgumentException when {@code limit < 1} or no stored hook has id {@code afterId}
     */
    default HookPage after(String afterId, int limit) {
        return after(afterId, limit, DEFAULT_PAGE_BYTES);
    }

    /**
     * As {@link #after(String, int)}, but the page also ends once its bodies reach
     * {@code maxBytes} (a page always holds at least one hook), so that a page of big
     * bodies cannot exhaust the heap; {@link HookPage#next()} then points on.
     */
    HookPage after(String afterId, int limit, long maxBytes);

    /**
     * Up to {@code limit} hooks, newest first, without their bodies: those committed before
     * the hook {@code afterId} (from the newest when null). Paging with
     * {@link HookSummary.Page#next()} walks back to the oldest; a page holds no body, so its
     * size is bounded by {@code limit} alone. What the console's Hooks page lists.
     *
     * @throws IllegalArgumentException when {@code limit < 1} or no stored hook has id {@code afterId}
     * @throws UnsupportedOperationException from a store that cannot read backwards
     */
    default HookSummary.Page newest(String afterId, int limit) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot list hooks newest first");
    }
}
