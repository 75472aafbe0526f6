package org.sluice.edge.store.kafka;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The records of one partition of the hooks topic that a {@link LogFollower} has put in
 * the working set and not yet committed past: from the committed offset to the newest
 * record read, in offset order.
 *
 * <pre>
 *   committed ─▶ [ o=40 unfinished | o=41 done | o=42 unfinished | o=43 done ] ◀─ next = 44
 *                  ▲ head: the offset that may be committed now is 40
 * </pre>
 * A record is finished when its hook has no pending delivery left (delivered or dead), when
 * it has nothing to deliver (no destination, or not a hook at all), or when it is
 * <em>superseded</em>: a newer record of the same hook, carried forward to a partition this
 * node reads ({@link OrderedCarry}), holds the hook from then on. {@link #advance}
 * drops finished records from the head and answers the offset that may be committed: the
 * head's, or {@code next} when nothing is held. So a commit never passes a hook whose
 * deliveries are not finished, and after a restart or a move of the partition everything
 * from the head on is read again (at least once).
 *
 * <p>Memory: one entry per record between the head and the newest one read, whatever its
 * state; {@link LogFollower} pauses the partition while {@link #size()} is at its bound.
 * Only the head is asked about on each pass while it stays unfinished, so a pass costs one
 * ledger read per partition plus one per record that finished.
 *
 * <p>Not thread-safe: owned by the follower's thread.
 */
final class PartitionProgress {

    /**
     * One record held: its offset, the id of its hook in the working set (null: nothing to
     * deliver), its timestamp (epoch ms) and the hook's place in its key's order (the offset
     * of its record on the hooks topic; -1 unknown).
     */
    record Held(long offset, String hookId, long stampMillis, long position) {
    }

    private final ArrayDeque<Held> held = new ArrayDeque<>();
    /** Offsets of held records superseded by a newer record of their hook; a subset of those held. */
    private final Set<Long> superseded = new HashSet<>();
    /** The offset of the first record read; -1 until one is. */
    private long first = -1;
    /** The offset after the newest record read; -1 until one is. */
    private long next = -1;
    /** The last offset committed to the group from this node; -1 when none yet. */
    private long committed = -1;

    /** A record read at {@code offset}, whose hook is {@code hookId} in the working set (null: nothing to deliver). */
    void track(long offset, String hookId) {
        track(offset, hookId, -1, -1);
    }

    /** As {@link #track(long, String)}, with the record's timestamp and the hook's place in its key's order. */
    void track(long offset, String hookId, long stampMillis, long position) {
        held.addLast(new Held(offset, hookId, stampMillis, position));
        if (first < 0) {
            first = offset;
        }
        next = offset + 1;
    }

    /**
     * Drops the finished records at the head ({@code finished} asked about each hook, head
     * first, until one is not) and returns the offset that may be committed, or -1 when no
     * record was read yet.
     */
    long advance(Predicate<String> finished) {
        while (!held.isEmpty()) {
            Held head = held.peekFirst();
            boolean done = head.hookId() == null || superseded.remove(head.offset()) || finished.test(head.hookId());
            if (!done) {
                return head.offset();
            }
            held.pollFirst();
        }
        return next;
    }

    /** Records held (finished or not) between the head and the newest read. */
    int size() {
        return held.size();
    }

    /** Up to {@code n} hooks held, head first (records with nothing to deliver, and superseded ones, left out). */
    List<String> heads(int n) {
        List<String> out = new ArrayList<>(Math.min(n, held.size()));
        for (Held e : held) {
            if (out.size() == n) {
                break;
            }
            if (e.hookId() != null && !superseded.contains(e.offset())) {
                out.add(e.hookId());
            }
        }
        return out;
    }

    /** The records held with a hook and not superseded, head first. */
    List<Held> live() {
        List<Held> out = new ArrayList<>(held.size());
        for (Held e : held) {
            if (e.hookId() != null && !superseded.contains(e.offset())) {
                out.add(e);
            }
        }
        return out;
    }

    /**
     * The record at {@code offset} is superseded: the log acknowledged a newer record of its
     * hook on a partition this node reads, so this one counts as finished. Ignored unless it
     * is held.
     */
    void supersede(long offset) {
        Held head = held.peekFirst();
        if (head != null && offset >= head.offset() && offset < next) {
            superseded.add(offset);
        }
    }

    /** The hooks held, for the working set to forget when the partition goes. */
    List<String> hookIds() {
        List<String> out = new ArrayList<>(held.size());
        for (Held e : held) {
            if (e.hookId() != null) {
                out.add(e.hookId());
            }
        }
        return out;
    }

    /** The offset last committed from this node, or -1. */
    long committed() {
        return committed;
    }

    void committed(long offset) {
        committed = offset;
    }

    /** Where to read again from to see every record not committed past: the last commit, else the first record read (-1: none). */
    long rewindTo() {
        return committed >= 0 ? committed : first;
    }
}
