package org.sluice.edge.intake;

/**
 * The {@code intake:} config section.
 *
 * @param partitions       writer threads, each with its own queue and batches ({@code intake.partitions})
 * @param maxBatch         most hooks in one commit ({@code intake.max_batch})
 * @param maxDelayMs       how long a writer waits for a batch to fill after its first hook; 0 commits as soon
 *                         as the writer is free, batching whatever queued meanwhile ({@code intake.max_delay_ms})
 * @param maxQueue         hooks the node holds in its batchers at once, queued and in flight ({@code intake.max_queue})
 * @param maxQueueBytes    body bytes the node holds at once ({@code intake.max_queue_bytes}); one hook larger than
 *                         this is taken only when the node holds nothing else
 * @param commitDeadlineMs a hook whose batch has not started this long after submit is refused
 *                         ({@code intake.commit_deadline_ms})
 */
public record IntakeSettings(int partitions, int maxBatch, long maxDelayMs, long maxQueue, long maxQueueBytes,
                             long commitDeadlineMs) {

    public IntakeSettings {
        atLeast("intake.partitions", partitions, 1);
        atLeast("intake.max_batch", maxBatch, 1);
        atLeast("intake.max_delay_ms", maxDelayMs, 0);
        atLeast("intake.max_queue", maxQueue, 1);
        atLeast("intake.max_queue_bytes", maxQueueBytes, 1);
        atLeast("intake.commit_deadline_ms", commitDeadlineMs, 1);
    }

    /** The documented defaults: 2 partitions, batches of 256, no delay, 10000 hooks, 256 MiB, 15 s. */
    public static IntakeSettings defaults() {
        return new IntakeSettings(2, 256, 0, 10_000, 256L * 1024 * 1024, 15_000);
    }

    public IntakeSettings withPartitions(int value) {
        return new IntakeSettings(value, maxBatch, maxDelayMs, maxQueue, maxQueueBytes, commitDeadlineMs);
    }

    public IntakeSettings withMaxBatch(int value) {
        return new IntakeSettings(partitions, value, maxDelayMs, maxQueue, maxQueueBytes, commitDeadlineMs);
    }

    public IntakeSettings withMaxDelayMs(long value) {
        return new IntakeSettings(partitions, maxBatch, value, maxQueue, maxQueueBytes, commitDeadlineMs);
    }

    public IntakeSettings withMaxQueue(long value) {
        return new IntakeSettings(partitions, maxBatch, maxDelayMs, value, maxQueueBytes, commitDeadlineMs);
    }

    public IntakeSettings withMaxQueueBytes(long value) {
        return new IntakeSettings(partitions, maxBatch, maxDelayMs, maxQueue, value, commitDeadlineMs);
    }

    public IntakeSettings withCommitDeadlineMs(long value) {
        return new IntakeSettings(partitions, maxBatch, maxDelayMs, maxQueue, maxQueueBytes, value);
    }

    private static void atLeast(String key, long value, long min) {
        if (value < min) {
            throw new IllegalArgumentException(key + " must be an integer of at least " + min + ", got " + value);
        }
    }
}
