package org.sluice.edge.store;

import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.LongPredicate;

/**
 * The delivery state: one row per (hook, destination), what the dispatcher, replays and the
 * admin API read and change. Obtained from {@link HookStore#deliveries()}.
 *
 * <h2>States</h2>
 * <pre>
 *             commit (durable, with the hook)          redeliver (durable)
 *                        │                          ┌─────────────────────┐
 *                        ▼                          ▼                     │
 *   recordAttempt ──▶ PENDING ──markDelivered──▶ DELIVERED               │
 *   (attempts+1,        │                                                 │
 *    new due time)      └────markDead(reason)──▶ DEAD ────────────────────┘
 * </pre>
 * Pending rows are written with the hook they belong to, so an accepted hook's deliveries
 * are as durable as the hook. Attempts, delivered and dead marks are not made durable on
 * their own (a lost mark only re-sends the attempt after a crash: at least once); a
 * redelivery and a pause change are (operator actions that are answered).
 *
 * <h2>Versions of a row</h2>
 * Each transition names the row it was decided on ({@link DeliveryRow} as read from
 * {@link #due}): it applies only while the stored row is still PENDING with the same
 * {@code attempts} and {@code scheduled_at}, else it changes nothing and returns false.
 * So an attempt that started before an operator's redelivery cannot mark the fresh
 * delivery, and a row handled twice is counted once.
 *
 * <p>The pause flags ({@link DestinationPauses}) are control state; the ledger answers for
 * them too because the dispatcher asks them on every pass.
 *
 * <p>Implementations are thread-safe. The RocksDB one is {@code RocksDeliveryLedger}.
 */
public interface DeliveryLedger extends DestinationPauses {

    // ================================================================ reading

    /**
     * Up to {@code limit} pending deliveries to {@code destination} due at or before
     * {@code nowMillis}, earliest due first (then commit order): {@link #dueBy}'s rows.
     */
    default List<DeliveryRow> due(String destination, long nowMillis, int limit) {
        return dueBy(destination, nowMillis, limit).rows();
    }

    /**
     * What {@link #dueBy} reads.
     *
     * @param rows          pending rows due by the scan's time, earliest due first
     * @param seqs          the commit sequence number of each row (same order), which names
     *                      the row to {@link #dueBy}'s {@code held} test
     * @param nextDueMillis when more rows were due than the limit, the due time (epoch ms,
     *                      at or before the scan's time) of the first one not returned; else -1
     * @param writes        {@link #othersWrites()} before the rows were read (see {@link Transition#seenAt})
     */
    record Due(List<DeliveryRow> rows, long[] seqs, long nextDueMillis, long writes) {
        public Due {
            rows = List.copyOf(rows);
            if (seqs.length != rows.size()) {
                throw new IllegalArgumentException(seqs.length + " sequence numbers for " + rows.size() + " rows");
            }
        }
    }

    /**
     * Up to {@code limit} pending deliveries to {@code destination} due at or before
     * {@code nowMillis}; {@link #dueBy(String, long, int, LongPredicate)} with nothing held.
     */
    default Due dueBy(String destination, long nowMillis, int limit) {
        return dueBy(destination, nowMillis, limit, seq -> false);
    }

    /**
     * Up to {@code limit} pending deliveries to {@code destination} due at or before
     * {@code nowMillis}, skipping the rows whose sequence number {@code held} names; the
     * dispatcher's scan, {@code held} being the rows whose attempt is out. A held row is
     * stepped over without reading it or counting it towards the limit. Rows of hooks not
     * yet durable are never returned (nothing is sent before its hook is durable).
     *
     * <p>{@link Due#nextDueMillis()} is only known when more rows were due than
     * {@code limit}. An implementation may stop looking at a held row for as long as it is
     * held, so whoever holds a row must, when it lets the row go without a transition of
     * {@link #apply} having changed it, call {@link #unheld} (the row is then seen by the
     * next scan).
     */
    Due dueBy(String destination, long nowMillis, int limit, LongPredicate held);

    /**
     * A row that a scan's {@code held} test named (see {@link #dueBy(String, long, int,
     * LongPredicate)}) is let go unchanged, still due at {@code nextAttemptAtMillis}: the
     * destination's scans look for it again. Costs no read or write.
     */
    void unheld(String destination, long nextAttemptAtMillis);

    /**
     * How many writes have changed stored rows other than through {@link #apply} (a
     * redelivery, a retention pass, a reopen of the store). Read it before reading a row;
     * while it has not moved, the row is as read unless {@link #apply} changed it.
     */
    long othersWrites();

    /** Every delivery row of the hook, by destination name; empty when the hook is unknown or has none. */
    List<DeliveryRow> deliveries(String hookId);

    /**
     * Dead letters in hook commit order, after the hook {@code afterId} (from the first when
     * null), to {@code destination} (every destination when null). A page holds {@code limit}
     * rows, except that it never ends inside one hook: it then holds that hook's other dead
     * rows too, so paging with {@link DeadLetterPage#next()} returns each dead letter once.
     *
     * @throws IllegalArgumentException when {@code limit < 1} or no stored hook has id {@code afterId}
     */
    DeadLetterPage deadLetters(String destination, String afterId, int limit);

    /**
     * Pending and dead rows of {@code destination}, and the age at {@code nowMillis} of the
     * oldest hook with a pending delivery to it.
     */
    DestinationBacklog counts(String destination, long nowMillis);

    /**
     * The pending rows of {@code destination}, as {@link #counts} answers them, without the
     * oldest one's age: a counter the ledger keeps, read with no seek into the store (a
     * replay on the fleet's log asks it after every write, and per batch).
     */
    default long pendingCount(String destination) {
        return counts(destination, 0).pending();
    }

    /** A pending delivery as the pending index lists it: the hook's commit sequence number and id. */
    record PendingRef(long seq, String hookId) {
    }

    /**
     * Up to {@code limit} pending deliveries to {@code destination} in hook commit order,
     * after the hook of sequence number {@code afterSeq} (0: from the first). Reads no row and
     * no hook; a {@code fifo} dispatcher follows new commits with it. Stops at the first hook
     * not yet known durable, as pagers do (see {@link HookLog#after}).
     */
    List<PendingRef> pendingInOrder(String destination, long afterSeq, int limit);

    /**
     * Rows to {@code destination} of hooks committed in {@code [fromMillis, toMillis)} (by
     * their id's time), after hook id {@code afterId} (from {@code fromMillis} when null),
     * examining at most {@code maxHooks} hooks: one step of {@link DeliveryScan}'s walk.
     */
    DeliveryScan.Page scan(String destination, long fromMillis, long toMillis, String afterId, int maxHooks);

    /** Names of the destinations that have pending or dead rows (or had them since open). */
    Set<String> destinations();

    /** Bytes of the hooks kept in memory for the dispatcher's reads now (bounded; 0 when none are kept). */
    long cachedHookBytes();

    // ================================================================ transitions (the dispatcher)

    /**
     * Moves a pending delivery's due time to {@code untilMillis} without counting an attempt:
     * the dispatcher claims a row before sending, so that an attempt lost in a crash (or in
     * a stuck send) comes due again on its own. Not durable on its own.
     *
     * @return false when the row changed since {@code seen} was read (nothing written)
     */
    default boolean claim(DeliveryRow seen, long untilMillis) {
        return apply(List.of(Transition.claim(seen, untilMillis)))[0];
    }

    /**
     * Records a failed attempt that will be retried: attempts + 1, its answer, and the next
     * due time. Not durable on its own: lost in a crash, the attempt is simply made again.
     *
     * @param status the HTTP status answered, or null when there was no answer
     * @param error  what went wrong without an answer (for example {@code timeout}), or null
     * @return false when the row changed since {@code seen} was read (nothing written)
     */
    default boolean recordAttempt(DeliveryRow seen, Integer status, String error, long nextAttemptAtMillis, long nowMillis) {
        return apply(List.of(Transition.attempt(seen, status, error, nextAttemptAtMillis, nowMillis)))[0];
    }

    /**
     * Marks the delivery delivered by an attempt answered {@code status} (null: a broker's
     * acknowledgement, which has no status). Not durable on its own: lost in a crash, the
     * hook is sent once more (same {@code webhook-id}).
     *
     * @return false when the row changed since {@code seen} was read (nothing written)
     */
    default boolean markDelivered(DeliveryRow seen, Integer status, long nowMillis) {
        return apply(List.of(Transition.delivered(seen, status, nowMillis)))[0];
    }

    /**
     * Gives up on the delivery: dead with {@code reason} ({@code permanent_status},
     * {@code permanent_error}, {@code max_attempts} or {@code max_age}, as {@code DeadReason.code()}). When
     * {@code attempted}, the attempt that decided it is counted with its status or error;
     * a delivery found expired when it came due is marked dead without one. Not durable on its own.
     *
     * @return false when the row changed since {@code seen} was read (nothing written)
     */
    default boolean markDead(DeliveryRow seen, String reason, boolean attempted, Integer status, String error, long nowMillis) {
        return apply(List.of(Transition.dead(seen, reason, attempted, status, error, nowMillis)))[0];
    }

    /**
     * Applies {@code transitions} in order, in ONE write (not durable on its own), and
     * returns for each whether it applied. Each applies only while the row is still PENDING
     * with the {@code attempts} and {@code scheduled_at} it was decided on (as seen by the
     * earlier transitions of the same call), else it changes nothing. The dispatcher records
     * the claims of one pass, and the answers that came back together, this way.
     */
    boolean[] apply(List<Transition> transitions);

    /**
     * One transition of a row as {@link #claim}, {@link #recordAttempt}, {@link #markDelivered}
     * and {@link #markDead} make it, to be applied with others in one write by {@link #apply}.
     */
    final class Transition {
        private final DeliveryRow seen;
        private final Change change;
        private final long seq;
        private final long writes;

        /** What a transition makes of the row as stored. */
        private interface Change {
            DeliveryRow apply(DeliveryRow current);
        }

        private Transition(DeliveryRow seen, Change change) {
            this(seen, change, -1, -1);
        }

        private Transition(DeliveryRow seen, Change change, long seq, long writes) {
            this.seen = Objects.requireNonNull(seen, "seen");
            this.change = change;
            this.seq = seq;
            this.writes = writes;
        }

        /**
         * The same transition, for a row whose stored value was exactly {@code seen} when
         * {@link DeliveryLedger#othersWrites()} read {@code writes} (a row returned by
         * {@link DeliveryLedger#dueBy} with its {@link Due#writes()}, or written by a commit),
         * under hook sequence number {@code seq}. {@link DeliveryLedger#apply} then takes
         * {@code seen} as the stored row without reading it again, unless another write has
         * changed rows since, or an earlier transition of this row has been applied since the
         * row was read: the caller must not pass a row it has already changed through
         * {@link DeliveryLedger#apply} since it read it.
         */
        public Transition seenAt(long seq, long writes) {
            if (seq < 0 || writes < 0) {
                throw new IllegalArgumentException("seq and writes must be at least 0, got " + seq + " and " + writes);
            }
            return new Transition(seen, change, seq, writes);
        }

        /** The row as the caller read it, which the transition was decided on. */
        public DeliveryRow seen() {
            return seen;
        }

        /** The hook's sequence number given to {@link #seenAt}, else -1. */
        public long seq() {
            return seq;
        }

        /** {@link DeliveryLedger#othersWrites()} as given to {@link #seenAt}, else -1. */
        public long writes() {
            return writes;
        }

        /** The row this transition makes of {@code current}, the row as stored (PENDING, as {@link #seen}). */
        public DeliveryRow applyTo(DeliveryRow current) {
            return change.apply(current);
        }

        /** As {@link DeliveryLedger#claim}. */
        public static Transition claim(DeliveryRow seen, long untilMillis) {
            return new Transition(seen, cur -> new DeliveryRow(cur.hookId(), cur.destination(), DeliveryState.PENDING,
                    cur.attempts(), untilMillis, cur.scheduledAtMillis(), cur.updatedAtMillis(), cur.lastStatus(),
                    cur.lastError(), null, null, null));
        }

        /** As {@link DeliveryLedger#recordAttempt}. */
        public static Transition attempt(DeliveryRow seen, Integer status, String error, long nextAttemptAtMillis, long nowMillis) {
            return new Transition(seen, cur -> new DeliveryRow(cur.hookId(), cur.destination(), DeliveryState.PENDING,
                    cur.attempts() + 1, nextAttemptAtMillis, cur.scheduledAtMillis(), nowMillis, status, error,
                    null, null, null));
        }

        /** As {@link DeliveryLedger#markDelivered}. */
        public static Transition delivered(DeliveryRow seen, Integer status, long nowMillis) {
            return new Transition(seen, cur -> new DeliveryRow(cur.hookId(), cur.destination(), DeliveryState.DELIVERED,
                    cur.attempts() + 1, cur.nextAttemptAtMillis(), cur.scheduledAtMillis(), nowMillis, status, null,
                    nowMillis, null, null));
        }

        /** As {@link DeliveryLedger#markDead}; fails on an unknown reason. */
        public static Transition dead(DeliveryRow seen, String reason, boolean attempted, Integer status, String error,
                                      long nowMillis) {
            DeliveryRow.checkDeadReason(reason); // fails on an unknown reason before anything is written
            return new Transition(seen, cur -> new DeliveryRow(cur.hookId(), cur.destination(), DeliveryState.DEAD,
                    cur.attempts() + (attempted ? 1 : 0), cur.nextAttemptAtMillis(), cur.scheduledAtMillis(), nowMillis,
                    attempted ? status : cur.lastStatus(), attempted ? error : cur.lastError(), null, reason, nowMillis));
        }
    }

    // ================================================================ operator actions

    /**
     * Schedules a fresh delivery of the hook to each of {@code destinations} (every
     * destination it has a row for when null): pending, attempts from 1, due at
     * {@code nowMillis}, whatever the row's state was (a pending row starts over).
     * Durable: when this returns, the redelivery survives a crash.
     *
     * @return the new rows, or empty when no stored hook has this id
     */
    Optional<List<DeliveryRow>> redeliver(String hookId, Collection<String> destinations, long nowMillis);

    // ================================================================ retention

    /**
     * One bounded retention pass over at most {@code maxHooks} hooks, oldest first,
     * continuing where the previous pass stopped. A hook's age is its commit time (from its
     * UUIDv7 id). For each hook:
     * <ul>
     *   <li>a DEAD row dead for at least {@code deadMaxAgeMillis} is deleted;</li>
     *   <li>the hook (record, id entry and DELIVERED rows) is deleted once it is at least
     *       {@code hooksMaxAgeMillis} old and it has no PENDING row and no DEAD row left;
     *       a hook with a pending delivery is never deleted, and a dead letter keeps its
     *       hook (so that it can be redelivered) until the dead letter itself expires.</li>
     * </ul>
     * The newest hook is deleted like any other (the store keeps its commit sequence
     * elsewhere). The pass stops early at the first hook too young for either rule, or not
     * yet known durable (a commit below it is still writing); the next pass then starts from
     * the oldest again. Not durable on its own: a pass lost in a crash is redone.
     */
    RetentionResult retentionPass(long nowMillis, long hooksMaxAgeMillis, long deadMaxAgeMillis, int maxHooks);

    /**
     * As {@link #retentionPass(long, long, long, int)}; with {@code storeFull} (the store is
     * at {@code store.max_bytes}) a hook whose deliveries are all delivered (at least one,
     * none pending or dead) is also deleted before {@code hooksMaxAgeMillis}, oldest first,
     * so that a full store drains as soon as its deliveries finish (issue 46, point 4).
     * Those are counted in {@link RetentionResult#deliveredEarly()}. A store kind that does
     * not bound its size this way (its log has a retention of its own) answers the plain pass.
     */
    default RetentionResult retentionPass(long nowMillis, long hooksMaxAgeMillis, long deadMaxAgeMillis, int maxHooks,
                                          boolean storeFull) {
        return retentionPass(nowMillis, hooksMaxAgeMillis, deadMaxAgeMillis, maxHooks);
    }
}
