package org.sluice.bench.shm;

import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The usual way to share a limit between processes: a token bucket in Redis, one
 * {@code EVALSHA} round trip per check over loopback (Lettuce, synchronous). Same two
 * workloads and policies as {@link SharedRateBench}. The port comes from
 * {@code -p redisPort=N}; {@code scripts/shm-bench.sh} starts and stops the server.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Thread)
public class RedisBucketBench {

    /** Tokens and a millisecond timestamp in a hash; refill by elapsed time; take one. */
    static final String SCRIPT = """
            local limit = tonumber(ARGV[1])
            local window = tonumber(ARGV[2])
            local t = redis.call('TIME')
            local now = t[1] * 1000 + math.floor(t[2] / 1000)
            local b = redis.call('HMGET', KEYS[1], 't', 'ts')
            local tokens = tonumber(b[1])
            local ts = tonumber(b[2])
            if tokens == nil then tokens = limit; ts = now end
            local elapsed = now - ts
            if elapsed < 0 then elapsed = 0 end
            tokens = math.min(limit, tokens + elapsed * limit / window)
            local ok = 0
            if tokens >= 1 then tokens = tokens - 1; ok = 1 end
            redis.call('HSET', KEYS[1], 't', tostring(tokens), 'ts', tostring(now))
            redis.call('PEXPIRE', KEYS[1], window * 2)
            return ok""";

    @Param("6379")
    public int redisPort;

    RedisClient client;
    StatefulRedisConnection<String, String> connection;
    RedisCommands<String, String> redis;
    String sha;
    final String[] keys = new String[SharedRateBench.KEYS];
    final String[] hotKey = {"rl:203.0.113.7"};
    int next;

    @Setup(Level.Trial)
    public void connect() {
        client = RedisClient.create("redis://127.0.0.1:" + redisPort);
        connection = client.connect();
        redis = connection.sync();
        sha = redis.scriptLoad(SCRIPT);
        String prefix = "rl:" + UUID.randomUUID().toString().substring(0, 8) + ":";
        for (int i = 0; i < keys.length; i++) {
            keys[i] = prefix + i;
        }
    }

    @TearDown(Level.Trial)
    public void close() {
        connection.close();
        client.shutdown();
    }

    @Benchmark
    public long distinctKeys() {
        String[] k = {keys[next]};
        next = (next + 1) & (keys.length - 1);
        return redis.<Long>evalsha(sha, ScriptOutputType.INTEGER, k, "1000000", "1000");
    }

    @Benchmark
    public long hotKey() {
        return redis.<Long>evalsha(sha, ScriptOutputType.INTEGER, hotKey, "1000", "1000");
    }
}
