package org.sluice.edge.config;

/**
 * {@code intake:} the group-commit batchers between admission and the store.
 *
 * @param partitions       {@code intake.partitions}, default 2: batchers (one writer thread each)
 * @param maxBatch         {@code intake.max_batch}, default 256: most hooks in one atomic write
 * @param maxDelayMs       {@code intake.max_delay_ms}, default 0: how long a batcher may wait
 *                         for more hooks before writing (0: write as soon as the previous commit ends)
 * @param maxQueue         {@code intake.max_queue}, default 10000: hooks held by the node
 *                         (buffered and in flight); past it, 503 overload
 * @param maxQueueBytes    {@code intake.max_queue_bytes}, default 268435456 (256 MiB): body
 *                         bytes held by the node; past it, 503 overload
 * @param commitDeadlineMs {@code intake.commit_deadline_ms}, default 15000: a hook whose batch
 *                         has not started by then gets 503 overload
 */
public record IntakeConfig(
        int partitions,
        int maxBatch,
        long maxDelayMs,
        int maxQueue,
        long maxQueueBytes,
        long commitDeadlineMs) {

    public static final int DEFAULT_PARTITIONS = 2;
    public static final int DEFAULT_MAX_BATCH = 256;
    public static final long DEFAULT_MAX_DELAY_MS = 0L;
    public static final int DEFAULT_MAX_QUEUE = 10_000;
    public static final long DEFAULT_MAX_QUEUE_BYTES = 268_435_456L;
    public static final long DEFAULT_COMMIT_DEADLINE_MS = 15_000L;

    public static IntakeConfig defaults() {
        return new IntakeConfig(DEFAULT_PARTITIONS, DEFAULT_MAX_BATCH, DEFAULT_MAX_DELAY_MS,
                DEFAULT_MAX_QUEUE, DEFAULT_MAX_QUEUE_BYTES, DEFAULT_COMMIT_DEADLINE_MS);
    }
}
