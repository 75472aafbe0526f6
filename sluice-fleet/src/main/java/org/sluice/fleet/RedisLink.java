package org.sluice.fleet;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.MaintNotificationsConfig;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisKeyAsyncCommands;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.metrics.CommandLatencyRecorder;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import io.netty.util.HashedWheelTimer;
import io.netty.util.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The Lettuce side: one standalone or cluster client pair over shared client resources.
 *
 * <ul>
 *   <li>{@link #requests()}: the admission connection, shared by every caller (Lettuce
 *       multiplexes), auto-flushed, command timeout = {@code fleet.timeout_ms} so calls
 *       a paused store never answers are cleared from its queue; commands are rejected at
 *       once while disconnected, and its queue is bounded.</li>
 *   <li>{@link #batch()}: the settle connection, auto-flush off (standalone): the
 *       settle drainer writes a batch and flushes it in one write, so a batch costs one
 *       round trip. With a cluster, commands are written one by one, still without
 *       waiting in between (pipelined). Only the drainer thread uses it.</li>
 * </ul>
 * A connection that could not be made (the store down at boot) is retried by {@link
 * #ensureConnected()}, called from the background thread; until then the accessors
 * return null and callers answer node-local.
 */
final class RedisLink implements AutoCloseable {

    /** Admission commands queued on one connection at most; more are rejected (node-local answers). */
    static final int REQUEST_QUEUE_MAX = 65_536;
    private static final Duration BATCH_TIMEOUT = Duration.ofSeconds(2);

    /** A connected pair of command interfaces (one connection). */
    public record Channel(StatefulConnection<String, String> connection,
                          RedisScriptingAsyncCommands<String, String> scripting,
                          RedisKeyAsyncCommands<String, String> keys) {
    }

    private final FleetSettings settings;
    private final HashedWheelTimer timer;
    private final ClientResources resources;
    private final AbstractRedisClient requestClient;
    private final AbstractRedisClient batchClient;
    private volatile Channel requests;
    private volatile Channel batch;

    public RedisLink(FleetSettings settings) {
        this.settings = settings;
        // One timer for every budget: 1 ms ticks, so a call is cut off within 1 ms of its
        // budget; scheduling a timeout is a lock-free enqueue (unlike a scheduled executor's
        // locked queue). Lettuce's command timeouts use it too.
        this.timer = new HashedWheelTimer(r -> {
            Thread t = new Thread(r, "sluice-fleet-timer");
            t.setDaemon(true);
            return t;
        }, 1, TimeUnit.MILLISECONDS, 512);
        this.resources = ClientResources.builder()
                .timer(timer)
                .ioThreadPoolSize(2)
                .computationThreadPoolSize(2)
                // nobody reads Lettuce's per-command latency histograms: don't record them
                .commandLatencyRecorder(CommandLatencyRecorder.disabled())
                .reconnectDelay(Delay.exponential(Duration.ofMillis(10), Duration.ofSeconds(1), 2, TimeUnit.MILLISECONDS))
                .build();
        this.requestClient = client(Duration.ofMillis(settings.timeoutMs()));
        this.batchClient = client(BATCH_TIMEOUT);
    }

    private AbstractRedisClient client(Duration commandTimeout) {
        SocketOptions socket = SocketOptions.builder()
                .connectTimeout(Duration.ofMillis(Math.max(100, settings.timeoutMs() * 10)))
                .keepAlive(true)
                .tcpNoDelay(true)
                .build();
        TimeoutOptions timeouts = TimeoutOptions.enabled(commandTimeout);
        if (settings.cluster()) {
            List<RedisURI> uris = new ArrayList<>();
            for (String uri : settings.redis()) {
                uris.add(RedisURI.create(uri.trim()));
            }
            RedisClusterClient c = RedisClusterClient.create(resources, uris);
            // A cluster connection opens its node connections lazily: rejecting commands while
            // one is not yet connected would fail the first call to each node. Commands wait
            // instead, bounded by the queue size and, for admissions, by the budget.
            c.setOptions((ClusterClientOptions) ClusterClientOptions.builder()
                    .autoReconnect(true)
                    .disconnectedBehavior(ClientOptions.DisconnectedBehavior.ACCEPT_COMMANDS)
                    .requestQueueSize(REQUEST_QUEUE_MAX)
                    .socketOptions(socket)
                    .timeoutOptions(timeouts)
                    .maintNotificationsConfig(MaintNotificationsConfig.disabled())
                    .build());
            return c;
        }
        RedisClient c = RedisClient.create(resources, RedisURI.create(settings.redis().get(0).trim()));
        c.setOptions(ClientOptions.builder()
                .autoReconnect(true)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .requestQueueSize(REQUEST_QUEUE_MAX)
                .socketOptions(socket)
                .timeoutOptions(timeouts)
                .maintNotificationsConfig(MaintNotificationsConfig.disabled())
                .build());
        return c;
    }

    private static Channel connect(AbstractRedisClient client) {
        if (client instanceof RedisClusterClient cluster) {
            StatefulRedisClusterConnection<String, String> c = cluster.connect(StringCodec.UTF8);
            return new Channel(c, c.async(), c.async());
        }
        StatefulRedisConnection<String, String> c = ((RedisClient) client).connect(StringCodec.UTF8);
        return new Channel(c, c.async(), c.async());
    }

    /**
     * Connects whichever connection is missing. Returns false when one is still missing
     * (the store cannot be reached); never throws. Called at start and by the background
     * thread; not on the request path.
     */
    public boolean ensureConnected() {
        try {
            if (requests == null) {
                requests = connect(requestClient);
            }
            if (batch == null) {
                Channel b = connect(batchClient);
                if (!settings.cluster()) {
                    // Cluster connections route each command to a node connection that may
                    // not exist yet when the batch is flushed, so a held-back command could
                    // wait forever; there the batch is written command by command, still
                    // without waiting for replies in between (pipelined, not one write).
                    b.connection().setAutoFlushCommands(false);
                }
                batch = b;
            }
            return true;
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** The timer that cuts calls off at their budget. */
    public Timer timer() {
        return timer;
    }

    /** The admission connection, or null while it could never be made. */
    public Channel requests() {
        return requests;
    }

    /** The settle connection (auto-flush off when standalone), or null while it could never be made. */
    Channel batch() {
        return batch;
    }

    @Override
    public void close() {
        Channel r = requests;
        Channel b = batch;
        if (r != null) {
            r.connection().close();
        }
        if (b != null) {
            b.connection().close();
        }
        requestClient.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        batchClient.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        resources.shutdown(0, 2, TimeUnit.SECONDS);
        timer.stop();
    }
}
