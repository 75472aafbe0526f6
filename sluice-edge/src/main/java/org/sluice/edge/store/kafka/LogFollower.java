package org.sluice.edge.store.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sluice.core.Clock;
import org.sluice.edge.store.DeliveryRow;
import org.sluice.edge.store.DeliveryState;
import org.sluice.edge.store.WorkingSet;

/**
 * The delivery side of the fleet's log (docs/fleet-log.md): follows the share of the hooks
 * topic that the delivery group assigns this node, copies each hook into the node's
 * {@link WorkingSet} under the log's id with its pending deliveries, and commits to the
 * group, per partition, only the offset of the oldest hook whose deliveries are not all
 * finished. The node's dispatcher delivers from the working set exactly as it delivers on
 * a single node (retries, breaker, pacing, dead letters); the follower never calls it: the
 * working set's commit hands new rows to the dispatcher ({@code CommitClaims}), and the
 * ledger's rows say what is finished.
 *
 * <h2>The group</h2>
 * Group {@code <prefix>.delivery} on {@code <prefix>.hooks}, classic protocol with the
 * cooperative {@link TopicSpreadAssignor} (each topic spread evenly over the nodes) and the client's {@code session.timeout.ms}
 * ({@link FollowerSettings#sessionTimeout()}, heartbeats every second, or every third of it when shorter): a rebalance
 * revokes only the partitions that move, so the other nodes keep delivering through it.
 * The classic protocol is chosen because its session timeout is the client's: the failover
 * bound is then a Sluice setting, not the brokers' {@code group.consumer.session.timeout.ms}
 * (45 s at least by default). Offsets are committed by hand (auto-commit off); a partition
 * never committed starts at its earliest record.
 *
 * <h2>What is committed when</h2>
 * Every {@link FollowerSettings#commitInterval()} the follower asks the ledger, per
 * partition, whether the oldest hook it holds is finished ({@link PartitionProgress}), and
 * commits the offset of the oldest one that is not (or past the newest read, when all
 * are). A revoked partition has its finished offset read, its hooks forgotten by the
 * working set (nothing more starts on them), the attempts out on them waited for
 * ({@link AttemptsOut}: the next owner sees no late copy of a {@code fifo} head), and then
 * the offset committed; a lost one (the session expired) only has its hooks forgotten.
 *
 * <p>A partition paused at its bound ({@link FollowerSettings#maxTrackedPerPartition()}) has
 * its finished head dropped on every loop between passes too, so it reads on once half of
 * what it holds is finished rather than at the next pass; only the passes commit.
 *
 * <h2>Failures, and the bound on repeats</h2>
 * <ul>
 *   <li><b>Node killed.</b> Its partitions move after the session timeout; the new owner
 *       reads them from the committed offset, so every hook at or after the oldest
 *       unfinished one is delivered again if it was delivered already. Per partition that
 *       is at most the records held between the committed offset and the newest read:
 *       {@link FollowerSettings#maxTrackedPerPartition()} plus one poll's records
 *       ({@code max.poll.records}, 500 unless set), plus the hooks that finished since the
 *       last commit interval.</li>
 *   <li><b>Cut off from the brokers.</b> A follower that has held unfinished hooks and
 *       could not commit for two thirds of the session timeout gives its working set up
 *       (forgets its hooks and rewinds to its last committed offsets), before the group
 *       can give its partitions to another node: the two overlap only by the attempts
 *       already out (each destination's {@code max_in_flight}).</li>
 *   <li><b>The working set's write fails.</b> The partition is rewound to the first record
 *       not stored and read again after a second.</li>
 *   <li><b>A record that is not a hook</b> (headers missing, a bad destination name) is
 *       logged and passed over as finished: it must not hold the partition.</li>
 * </ul>
 *
 * <h2>Distant retries: the retry topic</h2>
 * A hook at the head of a hooks partition whose next attempt is further away than
 * {@link FollowerSettings#retryMoveAfter()} (60 s by default) is written whole to
 * {@code <prefix>.retry} ({@link RetryRecords}: the hook, its pending destinations, their
 * attempts and due times), then forgotten here, and the hooks partition commits past it.
 * The node that owns its retry partition (the same group follows both topics) takes it
 * back into its working set at the same attempt and due time. A hook read from the retry
 * topic is not moved again: it holds that partition's offset, behind which there are only
 * other retries. Hooks of {@code fifo} destinations are never moved (it would reorder them):
 * they hold their partition as long as they wait. The retry record carries the hook, so
 * the hooks topic's retention no longer matters for it.
 *
 * <h2>Retention</h2>
 * A hook held longer than {@link FollowerSettings#carryAfter()} is written again before its
 * topic's retention can delete its record: {@link HookCarry} moves an unordered one from the
 * hooks topic to the retry topic; {@link OrderedCarry} copies a {@code fifo} one (with the
 * {@code fifo} hooks before it in its partition) to the retry partition of the same number,
 * and any hook held on the retry topic to its own partition again, keeping each key's
 * order. A node newly given a retry partition reads it to its end before the hooks partition
 * of its number ({@link CarryCatchUp}).
 *
 * <h2>Dead letters</h2>
 * A hook whose deliveries are finished with one dead or more counts as finished only once
 * its dead letters are on {@code <prefix>.dead} ({@link DeadLetters}, which carries the
 * whole hook): a dead letter outlives the node that made it. Listing and redelivering them
 * fleet-wide is the admin side's.
 *
 * <h2>Limits of this version</h2>
 * A hook waiting for a retry nearer than the move threshold, or to a {@code fifo}
 * destination, holds its partition's committed offset, and once
 * {@link FollowerSettings#maxTrackedPerPartition()} records are held behind it, the whole
 * partition (other (tenant, source) keys too) waits (the partition is paused).
 *
 * <h2>Threads</h2>
 * One thread ({@code sluice-log-follower}) owns the consumer, the progress of every
 * partition and the rebalance callbacks (which Kafka runs inside its poll). Other threads
 * read only what it publishes ({@link FollowerPublished}: {@link #committedOffsets()},
 * {@link #ownedPartitions()}, {@link #figures()}).
 */
public final class LogFollower implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(LogFollower.class);
    private static final Duration POLL = Duration.ofMillis(200);
    private static final long STORE_RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final FollowerSettings settings;
    private final WorkingSet store;
    private final Clock clock;
    private final LongSupplier wallMillis;
    private final KafkaConsumer<byte[], byte[]> consumer;
    /** Moves hooks waiting for distant retries to the retry topic (see "Distant retries"). */
    private final RetryMoves moves;
    /** Carries held hooks forward to the retry topic before the hooks topic's retention (see {@link HookCarry}). */
    private final HookCarry carry;
    /** Carries forward held fifo hooks, and hooks held on the retry topic, keeping their order ({@link OrderedCarry}). */
    private final OrderedCarry ordered;
    /** Newly given retry partitions read to their end before their hooks partitions ({@link CarryCatchUp}). */
    private final CarryCatchUp catchUp;
    /** Copies polled records into the working set. */
    private final RecordIntake intake;
    /** Writes dead letters to the dead-letter topic before their hooks count as finished. */
    private final DeadLetters deadLetters;
    /** Writes the retry and dead-letter topics. */
    private final KafkaProducer<byte[], byte[]> producer;
    private final Thread thread;
    private final long commitIntervalNanos;
    /** Two thirds of the session timeout: see "Cut off from the brokers". */
    private final long fenceNanos;

    /** Waited for when partitions are revoked; see {@link #awaitOnRevoke}. */
    private volatile AttemptsOut attemptsOut = AttemptsOut.NONE;
    private volatile boolean running;
    /** Set by {@link #abandon()}: the thread ends with no commit, no forgetting and no leave. */
    private volatile boolean abandoned;

    // owned by the follower's thread
    private final Map<TopicPartition, PartitionProgress> progress = new HashMap<>();
    private long lastContactNanos;

    // published for other threads
    private final FollowerPublished published;
    private final AtomicLong commitPasses = new AtomicLong();

    /**
     * A follower of {@code settings}' hooks topic into {@code store}, whose dispatcher
     * delivers from it. Nothing is read until {@link #start()}. The working set should be
     * empty: hooks it holds from an earlier run belong to partitions that may have moved
     * (the server opens it on an emptied directory).
     *
     * @throws KafkaException when the consumer's properties are refused
     */
    public LogFollower(FollowerSettings settings, WorkingSet store, Clock clock) {
        this(settings, store, clock, System::currentTimeMillis, Set.of());
    }

    /**
     * As {@link #LogFollower(FollowerSettings, WorkingSet, Clock)}, with the wall clock the
     * working set's due times are read on ({@code wallMillis}, epoch ms) and the
     * destinations delivered in order ({@code fifo}), whose hooks are never moved to the
     * retry topic.
     */
    public LogFollower(FollowerSettings settings, WorkingSet store, Clock clock, LongSupplier wallMillis,
                       Set<String> orderedDestinations) {
        this.settings = settings;
        this.store = store;
        this.clock = clock;
        this.wallMillis = wallMillis;
        long session = settings.sessionTimeout().toMillis();
        this.commitIntervalNanos = settings.commitInterval().toNanos();
        this.fenceNanos = TimeUnit.MILLISECONDS.toNanos(session) * 2 / 3;
        this.consumer = new KafkaConsumer<>(settings.consumerProperties());
        this.producer = new KafkaProducer<>(RetryMoves.producerProperties(settings));
        FollowerContext context = new FollowerContext(settings, store, wallMillis, orderedDestinations);
        this.moves = new RetryMoves(context, producer);
        this.carry = new HookCarry(context, moves);
        this.ordered = new OrderedCarry(context, producer);
        this.catchUp = new CarryCatchUp(context);
        this.intake = new RecordIntake(context, moves, catchUp);
        this.deadLetters = new DeadLetters(settings, store, producer);
        this.published = new FollowerPublished(settings, new FollowerFigures(!moves.enabled()
                ? List.of(settings.hooksTopic()) : List.of(settings.hooksTopic(), settings.retryTopic())));
        this.thread = new Thread(this::run, "sluice-log-follower");
        this.thread.setDaemon(true);
    }

    // ================================================================ lifecycle

    /** Joins the group and starts following. */
    public synchronized void start() {
        if (running || abandoned) {
            return;
        }
        running = true;
        thread.start();
    }

    /**
     * What a revocation waits for between forgetting the partitions' hooks and committing
     * (see "What is committed when"); call before {@link #start()}.
     */
    public void awaitOnRevoke(AttemptsOut out) {
        this.attemptsOut = out;
    }

    /**
     * Commits what is finished, gives the partitions back to the group (which hands them to
     * the other nodes at once) and forgets their hooks. Close the dispatcher first, so that
     * nothing is sent after the partitions have moved. Idempotent.
     */
    @Override
    public void close() {
        stop();
    }

    /**
     * Stops as a killed node would, for tests of failover: no offset committed, no hook
     * forgotten, and the group left only when the session times out.
     */
    void abandon() {
        abandoned = true;
        stop();
    }

    private void stop() {
        running = false;
        consumer.wakeup();
        if (thread.isAlive() && Thread.currentThread() != thread) {
            try {
                thread.join(TimeUnit.SECONDS.toMillis(30));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    // ================================================================ what other threads see

    /** The offset last committed from this node per partition of the hooks topic it owns. */
    public Map<Integer, Long> committedOffsets() {
        return published.committedOffsets();
    }

    /** As {@link #committedOffsets()}, for the retry topic. */
    public Map<Integer, Long> committedRetryOffsets() {
        return published.committedRetryOffsets();
    }

    /** Hooks moved to the retry topic since start. */
    public long hooksMoved() {
        return moves.moved();
    }

    /** Held hooks whose carry forward to the retry topic was started since start ({@link HookCarry}). */
    public long hooksCarried() {
        return carry.carried();
    }

    /** Held records superseded by a copy carried forward in order since start ({@link OrderedCarry}). */
    public long recordsCarriedInOrder() {
        return ordered.carried();
    }

    /** The partitions of the hooks topic this node owns now. */
    public Set<Integer> ownedPartitions() {
        return published.owned();
    }

    /** Commit passes run so far (each asks the ledger and commits what finished). */
    public long commitPasses() {
        return commitPasses.get();
    }

    /** Records copied into the working set since start (repeats included). */
    public long hooksTaken() {
        return intake.taken();
    }

    /** The figures of this node's share of the log, for the metrics (updated on each commit pass and rebalance). */
    public FollowerFigures figures() {
        return published.figures();
    }

    // ================================================================ the follower's thread

    private void run() {
        long lastPass = clock.nanoTime();
        lastContactNanos = lastPass;
        try {
            consumer.subscribe(published.figures().topics(), new Rebalances());
            while (running) {
                try {
                    boolean failed = intake.take(consumer.poll(POLL), progress, consumer);
                    intake.counted(catchUp.check(consumer, progress));
                    long now = clock.nanoTime();
                    if (now - lastPass >= commitIntervalNanos) {
                        lastPass = now;
                        commitPass();
                    } else {
                        advancePaused();
                    }
                    backpressure();
                    if (failed) {
                        LockSupport.parkNanos(STORE_RETRY_NANOS);
                    }
                } catch (WakeupException e) {
                    // stop() woke the poll: the loop's condition decides
                }
            }
            if (!abandoned) {
                try {
                    commitPass();
                } catch (WakeupException e) { // stop()'s wakeup came outside the poll; it is spent now
                    commitPass();
                }
            }
        } catch (RuntimeException e) {
            LOG.error("the log follower of {} stopped: {}", settings.hooksTopic(), e.toString(), e);
        } finally {
            try {
                consumer.close(abandoned
                        ? CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.REMAIN_IN_GROUP)
                                .withTimeout(Duration.ZERO)
                        : CloseOptions.timeout(Duration.ofSeconds(5)));
            } catch (RuntimeException e) {
                LOG.warn("closing the log follower's consumer failed: {}", e.toString());
            }
            producer.close(Duration.ofSeconds(abandoned ? 0 : 5));
            published.stopped();
        }
    }

    /**
     * Whether the record of {@code tp} naming the hook is finished: every delivery of the
     * hook delivered or dead, or the hook gone, or (for a hooks partition) moved to the retry topic.
     */
    private boolean finished(TopicPartition tp, String hookId) {
        if (tp.topic().equals(settings.hooksTopic()) && moves.takeMoved(hookId)) {
            return true; // on the retry topic now
        }
        List<DeliveryRow> rows = store.deliveries().deliveries(hookId);
        for (DeliveryRow r : rows) {
            if (r.state() == DeliveryState.PENDING) {
                return false;
            }
        }
        return deadLetters.published(hookId, rows);
    }

    /** Commits the finished offset of every partition held; see "What is committed when". */
    private void commitPass() {
        commitPasses.incrementAndGet();
        moves.settle();
        ordered.settle(progress);
        commit(progress.keySet());
        moves.start(progress);
        carry.start(progress);
        ordered.start(progress, catchUp::catchingUp);
        deadLetters.start(progress);
        published.figures(progress, consumer);
    }

    /** Commits the finished offsets of {@code partitions}; on no contact for too long, gives the working set up. */
    private void commit(Collection<TopicPartition> partitions) {
        Finished f = finishedOffsets(partitions);
        if (f != null) {
            commit(f.offsets(), f.holding());
        }
    }

    /** The offsets {@code partitions} may commit, and whether any holds a record; null when the working set failed a read. */
    private Finished finishedOffsets(Collection<TopicPartition> partitions) {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        boolean holding = false;
        try {
            for (TopicPartition tp : partitions) {
                PartitionProgress p = progress.get(tp);
                if (catchUp.catchingUp(tp)) {
                    continue; // what it holds is not all in the working set yet
                }
                long at = p.advance(id -> finished(tp, id));
                holding |= p.size() > 0;
                if (at >= 0 && (at > p.committed() || p.size() > 0)) { // re-committing a held one checks the contact
                    offsets.put(tp, new OffsetAndMetadata(at));
                }
            }
        } catch (RuntimeException e) { // the working set failed a read: nothing is known finished now
            LOG.warn("reading the working set's deliveries failed: {}", e.toString());
            return null;
        }
        return new Finished(offsets, holding);
    }

    private record Finished(Map<TopicPartition, OffsetAndMetadata> offsets, boolean holding) {
    }

    private void commit(Map<TopicPartition, OffsetAndMetadata> offsets, boolean holding) {
        long now = clock.nanoTime();
        if (offsets.isEmpty()) {
            if (!holding) {
                lastContactNanos = now; // nothing held, nothing that another node could repeat
            }
            return;
        }
        try {
            consumer.commitSync(offsets, settings.sessionTimeout().dividedBy(3));
            offsets.forEach((tp, o) -> {
                PartitionProgress p = progress.get(tp);
                if (p != null) { // null: revoked, its hooks already forgotten
                    p.committed(o.offset());
                    published.committed(tp, o.offset());
                }
            });
            lastContactNanos = now;
        } catch (RebalanceInProgressException | CommitFailedException e) {
            LOG.info("offsets of {} not committed during a rebalance: {}", offsets.keySet(), e.toString());
        } catch (WakeupException e) {
            throw e;
        } catch (KafkaException e) {
            LOG.warn("committing offsets of {} failed: {}", offsets.keySet(), e.toString());
            if (holding && clock.nanoTime() - lastContactNanos >= fenceNanos) {
                giveUpWorkingSet();
            }
        }
    }

    /**
     * No contact with the group for two thirds of the session timeout while holding hooks:
     * another node may own these partitions soon. Forgets every held hook and rewinds each
     * partition to the offset last committed from here (or the first one read), so that if
     * the group kept them here they are read again.
     */
    private void giveUpWorkingSet() {
        LOG.warn("no contact with the delivery group for {} ms: giving up the working set of partitions {}",
                TimeUnit.NANOSECONDS.toMillis(fenceNanos), progress.keySet());
        for (Map.Entry<TopicPartition, PartitionProgress> e : progress.entrySet()) {
            PartitionProgress p = e.getValue();
            store.forget(p.hookIds());
            moves.drop(p.hookIds());
            deadLetters.drop(p.hookIds());
            long from = p.rewindTo();
            if (from >= 0) {
                consumer.seek(e.getKey(), from);
            }
            e.setValue(new PartitionProgress());
        }
        ordered.drop(progress.keySet());
        catchUp.rewound(progress.keySet(), consumer);
        lastContactNanos = clock.nanoTime();
    }

    /**
     * Drops the finished head of each paused partition between two commit passes, so that a
     * partition held at its bound reads on as soon as half of its records are delivered,
     * not only at the next pass ({@link FollowerSettings#commitInterval()}): without it one
     * partition's backlog moved at most {@code maxTrackedPerPartition} records a commit
     * interval, whatever the destinations' speed. Nothing is committed here; the next pass
     * commits the new head. A head still unfinished costs one working-set read a loop (at most
     * one each {@code POLL}, while the partition stays paused).
     */
    private void advancePaused() {
        Set<TopicPartition> paused = consumer.paused();
        if (paused.isEmpty()) {
            return;
        }
        try {
            for (TopicPartition tp : paused) {
                PartitionProgress p = progress.get(tp);
                if (p != null && !catchUp.catchingUp(tp)) {
                    p.advance(id -> finished(tp, id));
                }
            }
        } catch (RuntimeException e) { // the next commit pass reads again, and logs a failure that lasts
            LOG.debug("reading the working set's deliveries between passes failed: {}", e.toString());
        }
    }

    /** Pauses each partition holding its bound of records; resumes it once half of them are gone. */
    private void backpressure() {
        int max = settings.maxTrackedPerPartition();
        Set<TopicPartition> paused = consumer.paused();
        List<TopicPartition> pause = new ArrayList<>();
        List<TopicPartition> resume = new ArrayList<>();
        progress.forEach((tp, p) -> {
            boolean isPaused = paused.contains(tp);
            if (!isPaused && p.size() >= max) {
                pause.add(tp);
            } else if (isPaused && p.size() <= max / 2 && !catchUp.holds(tp)) {
                resume.add(tp);
            }
        });
        if (!pause.isEmpty()) {
            LOG.info("partitions {} hold {} records behind an unfinished hook: paused", pause, max);
            consumer.pause(pause);
        }
        if (!resume.isEmpty()) {
            consumer.resume(resume);
        }
    }

    /** The group's calls, inside the consumer's poll on the follower's thread. */
    private final class Rebalances implements ConsumerRebalanceListener {

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            for (TopicPartition tp : partitions) {
                progress.putIfAbsent(tp, new PartitionProgress()); // read from the committed offset on
            }
            catchUp.assigned(partitions, consumer);
            published.owned(progress.keySet());
            if (!partitions.isEmpty()) {
                published.figures().rebalanced(FollowerFigures.Rebalance.ASSIGNED);
                published.figures(progress, consumer);
                LOG.info("delivery group: partitions {} assigned", partitions);
            }
        }

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            if (abandoned || partitions.isEmpty()) {
                return;
            }
            // the offsets while the rows say what is finished; then nothing more starts on the
            // hooks, and what is out ends, before the next owner reads from the offsets
            List<TopicPartition> ours = partitions.stream().filter(progress::containsKey).toList();
            Finished f = finishedOffsets(ours);
            List<String> held = new ArrayList<>();
            ours.forEach(tp -> held.addAll(progress.get(tp).hookIds()));
            drop(ours);
            attemptsOut.awaitEnded(held);
            if (f != null) {
                commit(f.offsets(), f.holding());
            }
            published.figures().rebalanced(FollowerFigures.Rebalance.REVOKED);
            published.figures(progress, consumer);
            LOG.info("delivery group: partitions {} revoked", partitions);
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            if (abandoned) {
                return;
            }
            drop(partitions);
            if (!partitions.isEmpty()) {
                published.figures().rebalanced(FollowerFigures.Rebalance.LOST);
                published.figures(progress, consumer);
            }
            LOG.warn("delivery group: partitions {} lost (the session expired)", partitions);
        }

        private void drop(Collection<TopicPartition> partitions) {
            Map<TopicPartition, PartitionProgress> gone = new HashMap<>();
            for (TopicPartition tp : partitions) {
                PartitionProgress p = progress.remove(tp);
                published.released(tp);
                if (p != null) {
                    gone.put(tp, p);
                }
            }
            catchUp.revoked(partitions, consumer);
            ordered.drop(partitions);
            Set<String> kept = new HashSet<>(); // a hook carried forward in order may be held by a partition kept too
            progress.values().forEach(p -> kept.addAll(p.hookIds()));
            gone.forEach((tp, p) -> {
                List<String> ids = p.hookIds().stream().filter(id -> !kept.contains(id)).toList();
                moves.drop(ids);
                deadLetters.drop(ids);
                try {
                    store.forget(ids);
                } catch (RuntimeException e) { // rows left behind are re-sent by this node: at least once still holds
                    LOG.warn("forgetting the hooks of {} failed: {}", tp, e.toString());
                }
            });
            published.owned(progress.keySet());
        }
    }
}
