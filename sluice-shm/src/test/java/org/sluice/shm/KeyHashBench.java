package org.sluice.shm;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
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
 * hash is. {@code byteKeySipHash24} is the same byte path with SipHash-2-4's rounds (two
 * per word, four to finish), the stronger variant not adopted: the price of the extra
 * rounds. Lives in the package of {@link KeyHash}, which is package-private.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Thread)
public class KeyHashBench {

    private final String[] keys = new String[1024];
    private final byte[][] bytes = new byte[1024][];
    private final KeyHash hash = new KeyHash(42L, -7L);
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
        return hash.hash(keys[index()]);
    }

    /** The rejected alternative: let the JDK encode (an allocation), then hash the bytes. */
    @Benchmark
    public long stringKeyViaGetBytes() {
        return hash.hash(keys[index()].getBytes(StandardCharsets.UTF_8));
    }

    @Benchmark
    public long byteKey() {
        return hash.hash(bytes[index()]);
    }

    @Benchmark
    public long byteKeySipHash24() {
        return sipHash24(42L, -7L, bytes[index()]);
    }

    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    /** SipHash-2-4 shaped like {@code KeyHash.hash(byte[])} (whole words, the same tail read). */
    static long sipHash24(long k0, long k1, byte[] key) {
        long v0 = k0 ^ 0x736f6d6570736575L;
        long v1 = k1 ^ 0x646f72616e646f6dL;
        long v2 = k0 ^ 0x6c7967656e657261L;
        long v3 = k1 ^ 0x7465646279746573L;
        int n = key.length;
        int i = 0;
        for (; i + 8 <= n; i += 8) {
            long m = (long) LONGS.get(key, i);
            v3 ^= m;
            for (int r = 0; r < 2; r++) {
                v0 += v1; v1 = Long.rotateLeft(v1, 13); v1 ^= v0; v0 = Long.rotateLeft(v0, 32);
                v2 += v3; v3 = Long.rotateLeft(v3, 16); v3 ^= v2;
                v0 += v3; v3 = Long.rotateLeft(v3, 21); v3 ^= v0;
                v2 += v1; v1 = Long.rotateLeft(v1, 17); v1 ^= v2; v2 = Long.rotateLeft(v2, 32);
            }
            v0 ^= m;
        }
        long last = (long) n << 56;
        int rest = n - i;
        if (rest > 0 && n >= 8) { // the same overlapping tail read as KeyHash
            last |= (long) LONGS.get(key, n - 8) >>> ((8 - rest) << 3);
        } else {
            for (int j = 0; i < n; i++, j += 8) {
                last |= (key[i] & 0xFFL) << j;
            }
        }
        v3 ^= last;
        for (int r = 0; r < 2; r++) {
            v0 += v1; v1 = Long.rotateLeft(v1, 13); v1 ^= v0; v0 = Long.rotateLeft(v0, 32);
            v2 += v3; v3 = Long.rotateLeft(v3, 16); v3 ^= v2;
            v0 += v3; v3 = Long.rotateLeft(v3, 21); v3 ^= v0;
            v2 += v1; v1 = Long.rotateLeft(v1, 17); v1 ^= v2; v2 = Long.rotateLeft(v2, 32);
        }
        v0 ^= last;
        v2 ^= 0xff;
        for (int r = 0; r < 4; r++) {
            v0 += v1; v1 = Long.rotateLeft(v1, 13); v1 ^= v0; v0 = Long.rotateLeft(v0, 32);
            v2 += v3; v3 = Long.rotateLeft(v3, 16); v3 ^= v2;
            v0 += v3; v3 = Long.rotateLeft(v3, 21); v3 ^= v0;
            v2 += v1; v1 = Long.rotateLeft(v1, 17); v1 ^= v2; v2 = Long.rotateLeft(v2, 32);
        }
        return v0 ^ v1 ^ v2 ^ v3;
    }
}
