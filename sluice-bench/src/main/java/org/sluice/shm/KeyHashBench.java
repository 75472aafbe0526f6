package org.sluice.shm;

import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The key hash alone, on the keys of {@code SharedRateBench.distinctKeys} (20 ASCII
 * characters): as a {@code String} (UTF-8 computed char by char, no allocation) and as
 * the same key's bytes, and the {@code String} through {@code getBytes(UTF_8)} (the
 * JDK's encoder and an allocation) for comparison. What part of an {@code allow()} the
 * hash is. Lives in the
 * package of {@link KeyHash}, which is package-private.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Thread)
public class KeyHashBench {

    private final String[] keys = new String[1024];
    private final byte[][] bytes = new byte[1024][];
    private int next;

    @Setup(Level.Trial)
    public void make() {
        String prefix = "client-" + UUID.randomUUID().toString().substring(0, 8) + "-";
        for (int i = 0; i < keys.length; i++) {
            keys[i] = prefix + i;
            bytes[i] = keys[i].getBytes(StandardCharsets.UTF_8);
        }
    }

    private int index() {
        int i = next;
        next = (i + 1) & 1023;
        return i;
    }

    @Benchmark
    public long stringKey() {
        return KeyHash.hash(keys[index()], 42L);
    }

    /** The rejected alternative: let the JDK encode (an allocation), then hash the bytes. */
    @Benchmark
    public long stringKeyViaGetBytes() {
        return KeyHash.hash(keys[index()].getBytes(StandardCharsets.UTF_8), 42L);
    }

    @Benchmark
    public long byteKey() {
        return KeyHash.hash(bytes[index()], 42L);
    }
}
