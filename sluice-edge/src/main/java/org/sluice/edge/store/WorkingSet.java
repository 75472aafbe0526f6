package org.sluice.edge.store;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * A node's store used as the working set of a share of a log kept elsewhere (the fleet's
 * log on Kafka, docs/fleet-log.md): the log gave every hook its id, and the node holds the
 * hooks of the partitions it owns for as long as it owns them, so that the dispatcher
 * delivers them from here exactly as it delivers hooks committed by the node's own intake.
 * What is here can be thrown away at any time: the log holds every hook until its
 * deliveries are finished.
 *
 * <p>Implementations are thread-safe. The RocksDB one is {@code RocksHookStore}.
 */
public interface WorkingSet extends HookStore {

    /**
     * Commits {@code batch}, each hook under the id at the same index of {@code ids} (a
     * UUIDv7 given by the log), with a pending delivery per destination it names, as
     * {@link #commit} does. No dedupe check is made and no dedupe key is written (the log's
     * intake deduplicated). A hook whose id this store already holds, or that appears
     * earlier in the batch, is answered {@link CommitResult.Status#DUPLICATE} with its id
     * and nothing is written for it: committing the same record twice is harmless. The
     * caller must not commit one id from two threads at once.
     *
     * @throws IllegalArgumentException when the two lists differ in size
     * @throws HookStoreException       when the write fails; then nothing in the batch is stored
     */
    default List<CommitResult> commitWithIds(List<PendingHook> batch, List<UUID> ids) {
        return commitWithIds(batch, ids, null);
    }

    /**
     * Where a delivery carried over from an earlier owner stands: the attempts already made
     * and when the next one is due (epoch ms). A row written with it is not claimed at its
     * commit when it is due later than the commit.
     */
    record Carried(int attempts, long dueMillis) {
        public Carried {
            if (attempts < 0) {
                throw new IllegalArgumentException("attempts must be at least 0, got " + attempts);
            }
        }
    }

    /**
     * As {@link #commitWithIds(List, List)}, with the deliveries of hook {@code i} starting
     * where {@code carried.get(i)} says (by destination; a destination missing from the map,
     * a null map or a null {@code carried} starts at attempt 0, due now): a hook moved to
     * the retry topic and taken back keeps its attempts and its due time.
     */
    List<CommitResult> commitWithIds(List<PendingHook> batch, List<UUID> ids, List<Map<String, Carried>> carried);

    /**
     * Gives each hook of {@code ids} that this store holds a fresh delivery to
     * {@code destination}: pending, attempts from the first, due now, whatever its row there
     * was (none, pending, delivered or dead); its other rows stay as they are. One write for
     * them all, not durable on its own (as {@link #forget}), and the dispatcher is told. A
     * replay on the log uses it for the hooks it finds held already. Returns the ids given a
     * fresh delivery; an id the store does not hold is skipped.
     */
    List<String> redeliverHeld(Collection<String> ids, String destination, long nowMillis);

    /**
     * Deletes the hooks with these ids, with every delivery row they have (pending, dead or
     * delivered): the node gave up the share of the log they belong to. An attempt already
     * out for one of them finishes, but its answer finds no row and changes nothing. An id
     * the store does not hold is skipped. Not durable on its own (a working set lost in a
     * crash is rebuilt from the log). Returns how many hooks were deleted.
     */
    int forget(Collection<String> ids);
}
