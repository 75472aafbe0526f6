package org.sluice.edge.store;

import java.security.SecureRandom;
import java.util.Random;
import java.util.UUID;

/**
 * UUIDv7 generator (RFC 9562): 48 bits of Unix milliseconds, version 7, 12 bits
 * {@code rand_a}, variant {@code 10}, 62 bits {@code rand_b}.
 *
 * <p>Monotonic: every id is greater (as an unsigned 128-bit number, and so as its
 * string) than the one before it from this generator. A new millisecond starts from
 * fresh random bits with the top bit of {@code rand_a} cleared; within one millisecond
 * (or when the clock steps back) the 74 random bits are incremented as one counter
 * (RFC 9562 section 6.2, method 3), leaving at least 2^73 ids per millisecond; should
 * the counter ever overflow, the timestamp moves one millisecond ahead.
 *
 * <p>Shared by both stores: the RocksDB store makes its ids under its commit lock, the
 * Kafka log (one generator per node) before it produces a batch.
 *
 * <p>Thread-safe (synchronized).
 */
public final class UuidV7 {

    private static final long RAND_B_LIMIT = 1L << 62;
    private static final int RAND_A_LIMIT = 1 << 12;

    private final Random random;
    private long lastMillis = Long.MIN_VALUE;
    private int randA;
    private long randB;

    public UuidV7() {
        this(new SecureRandom());
    }

    public UuidV7(Random random) {
        this.random = random;
    }

    /** The next id for wall-clock time {@code nowMillis}. */
    public synchronized UUID next(long nowMillis) {
        if (nowMillis > lastMillis) {
            lastMillis = nowMillis;
            randA = random.nextInt(RAND_A_LIMIT >>> 1);
            randB = random.nextLong() & (RAND_B_LIMIT - 1);
        } else if (++randB == RAND_B_LIMIT) {
            randB = 0;
            if (++randA == RAND_A_LIMIT) {
                lastMillis++;
                randA = random.nextInt(RAND_A_LIMIT >>> 1);
                randB = random.nextLong() & (RAND_B_LIMIT - 1);
            }
        }
        long msb = (lastMillis << 16) | (0x7L << 12) | randA;
        long lsb = (0x2L << 62) | randB;
        return new UUID(msb, lsb);
    }

    /** Continue after {@code previous} (an id this generator's store already holds), so ids stay monotonic across restarts. */
    public synchronized void continueAfter(UUID previous) {
        long millis = previous.getMostSignificantBits() >>> 16;
        if (millis >= lastMillis) {
            lastMillis = millis;
            randA = (int) (previous.getMostSignificantBits() & 0xFFF);
            randB = previous.getLeastSignificantBits() & (RAND_B_LIMIT - 1);
        }
    }

    /** Unix milliseconds of a UUIDv7. */
    public static long millisOf(UUID id) {
        return id.getMostSignificantBits() >>> 16;
    }
}
