package org.sluice.edge.delivery.http;

import org.sluice.edge.delivery.AttemptOutcome;
import org.sluice.edge.delivery.targets.HttpTarget;
import org.sluice.edge.delivery.targets.Target;
import static org.sluice.edge.delivery.http.HttpAttempt.brief;
import static org.sluice.edge.delivery.http.HttpAttempt.connectError;
import static org.sluice.edge.delivery.http.HttpAttempt.failure;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import org.sluice.edge.delivery.AttemptResult;
import org.sluice.edge.delivery.Destination;
import org.sluice.edge.delivery.OutboundHeaders;
import org.sluice.edge.delivery.Transport;
import org.sluice.edge.netio.IoTransport;
import org.sluice.edge.route.Transform;
import org.sluice.edge.store.StoredHook;

/**
 * The outbound HTTP/1.1 client of the dispatcher, on Netty: non-blocking, one pool of
 * keep-alive connections per destination.
 *
 * <h2>One attempt</h2>
 * {@link #send} takes an idle pooled connection to the destination (or opens one), writes
 * {@code POST <path>} with {@code host}, {@code content-length}, the given headers in
 * order and the body byte for byte, and completes its future with the answer's status and
 * {@code Retry-After}, or with a failure: {@code connect} (refused, unreachable, DNS, TLS
 * handshake), {@code reset} (closed before a full answer), {@code timeout} (no full answer
 * within the destination's {@code timeout_ms}, counted from before the connect), or
 * {@code protocol} (an unreadable answer). Redirects are answers, never followed.
 *
 * <h2>Bounded reading</h2>
 * The status line and headers are bounded by the codec (8 KiB lines, 16 KiB of headers).
 * Of the answer's body at most {@value #MAX_BODY_BYTES} bytes are read: past that the
 * attempt completes with the status already read and the connection is closed rather
 * than drained, so a destination cannot make Sluice buffer (or keep reading) unbounded
 * data. Body bytes are released as they arrive, never aggregated.
 *
 * <h2>Connections</h2>
 * A connection goes back to its destination's pool after a complete answer that allows
 * keep-alive; otherwise, and after any failure or timeout, it is closed. The dispatcher
 * never has more than {@code max_in_flight} attempts out to a destination, so a pool
 * holds at most that many connections (a destination at most that many per loop).
 *
 * <h2>Threads</h2>
 * One event loop group does all socket work: the server's ingest loops, lent as
 * {@link ClientLoops} (never shut down by this client; not lent when a destination is
 * {@code https}, see {@link #forDestinations}), or else a small group of its own
 * ({@code sluice-delivery-io-N}). A destination has one pool on each of the loops: a pool's connections, its
 * attempts' timers and their answers all live on its loop, so its idle connections need no lock. An
 * attempt goes to the destination's pool with the fewest attempts out, its home pool (the loops are
 * dealt out to destinations in turn) on a tie: attempts one at a time all go home and reuse one
 * connection, while a busy destination's attempts are spread over every loop, so no one loop carries
 * all of its sockets (at full load, the loop that did was the busiest thread of the server, with
 * about twice the CPU time of the other; see docs/bench-notes/delivery-2026-12-04-to-05.md,
 * "Stretches behind").
 * {@link #send(Destination, StoredHook, int, long)} only queues the attempt; {@link #flush()}
 * then submits, for each pool with queued attempts and no run pending, one task on its loop
 * that starts every attempt queued since (builds the request, takes or opens a
 * connection, writes): a dispatcher pass that sends N attempts wakes each loop once, not
 * N times (waking a loop is a system call), and nothing is written from a foreign thread. Futures complete on the loop, so whatever runs
 * in their completion must be short and must never block (the dispatcher only judges the
 * answer and queues it). No lock is held across a network call; the set of live attempts (which lets
 * {@link #close()} fail an attempt whose loop stopped before completing it) is a concurrent set.
 */
public final class HttpDeliveryClient implements Transport {

    /** Most answer body bytes read per attempt before the connection is closed instead. */
    static final int MAX_BODY_BYTES = 64 * 1024;
    private static final int MAX_INITIAL_LINE = 8 * 1024;
    private static final int MAX_HEADER_BYTES = 16 * 1024;

    private final EventLoopGroup group;
    /** False when {@link #group} is borrowed ({@link ClientLoops}): then {@link #close()} leaves it running. */
    private final boolean ownsGroup;
    private final Class<? extends SocketChannel> channelClass;
    private final InstantSource wall;
    /** What a transformation's time limit is counted on ({@link Transform#cpuClock()}). */
    private final java.util.function.LongSupplier cpuClock = Transform.cpuClock();
    /** Each destination's pools, one per loop, its home pool first. */
    private final Map<String, Pool[]> pools = new ConcurrentHashMap<>();
    /** Destinations registered so far: which loop is the next one's home. */
    private final AtomicInteger registered = new AtomicInteger();
    private final AtomicBoolean closed = new AtomicBoolean();

    /**
     * The client for the {@code http} destinations among {@code destinations}, on
     * {@code httpLoops} (event loops it may borrow, or null for loops of its own: 1, or 2 for
     * two destinations or more, of {@code transport}). It borrows them only when no destination
     * is {@code https}: a TLS handshake takes a millisecond or more of CPU, and a destination
     * that closes every connection would make one per attempt; on loops of its own those never
     * hold an ingest loop.
     *
     * @param transport the transport of loops of its own ({@code http.transport}, as the listeners use:
     *                  in a delivery benchmark at full load the client's event loop was a third of the
     *                  server's CPU samples under NIO)
     */
    public static HttpDeliveryClient forDestinations(List<Destination> destinations, IoTransport transport,
                                                     ClientLoops httpLoops, InstantSource wall) {
        List<HttpTarget> http = destinations.stream().filter(d -> d.target().kind() == Target.Kind.HTTP)
                .map(d -> d.target(HttpTarget.class)).toList();
        if (httpLoops != null && http.stream().noneMatch(HttpTarget::https)) {
            return new HttpDeliveryClient(httpLoops, wall);
        }
        return new HttpDeliveryClient(Math.min(2, http.size()), transport, wall);
    }

    /**
     * @param threads   event loop threads, 1 or 2 are plenty
     * @param transport the transport of those loops
     * @param wall      the wall clock, for reading {@code Retry-After} dates
     */
    HttpDeliveryClient(int threads, IoTransport transport, InstantSource wall) {
        this(new ClientLoops(transport.group(threads, "sluice-delivery-io"), transport), true, wall);
    }

    /**
     * A client on borrowed event loops (the server's ingest loops); {@link #close()} closes
     * its connections and ends its attempts but leaves the loops to their owner.
     */
    HttpDeliveryClient(ClientLoops loops, InstantSource wall) {
        this(loops, false, wall);
    }

    private HttpDeliveryClient(ClientLoops loops, boolean ownsGroup, InstantSource wall) {
        this.group = loops.group();
        this.ownsGroup = ownsGroup;
        this.channelClass = loops.transport().socketChannel();
        this.wall = wall;
    }

    /** Prepares the pool of {@code destination} (its TLS context is built here, so a bad {@code ca_file} fails early). */
    @Override
    public void register(Destination destination) {
        destination.transform().ifPresent(Transform::warmUp);
        pools.computeIfAbsent(destination.name(), n -> {
            SslContext ssl = sslContext(destination);
            List<EventLoop> loops = new ArrayList<>();
            group.forEach(e -> loops.add((EventLoop) e));
            int home = Math.floorMod(registered.getAndIncrement(), loops.size());
            Pool[] perLoop = new Pool[loops.size()];
            for (int i = 0; i < perLoop.length; i++) {
                perLoop[i] = new Pool(destination, ssl, loops.get((home + i) % loops.size()), closed);
            }
            return perLoop;
        });
    }

    /**
     * Queues one attempt with the destination's headers for it ({@link OutboundHeaders#forAttempt}:
     * forwarded, configured, {@code webhook-*} and the signature at {@code nowMillis}); it
     * starts at the next {@link #flush()}.
     */
    @Override
    public CompletableFuture<AttemptOutcome> send(Destination destination, StoredHook hook, int attempt, long nowMillis) {
        if (destination.transform().isPresent()) {
            Transform.Outcome o = Reshaped.apply(destination, hook, cpuClock);
            if (o instanceof Transform.Outcome.Failed f) {
                return Reshaped.failed(f);
            }
            Reshaped r;
            try {
                r = Reshaped.of(destination, ((Transform.Outcome.Shaped) o).request(), hook, attempt,
                        Math.floorDiv(nowMillis, 1000));
            } catch (RuntimeException e) {
                return CompletableFuture.completedFuture(failure(AttemptResult.Failure.PROTOCOL, "cannot build the request"));
            }
            Pool pool = pool(destination.name());
            return queue(pool, new HttpAttempt(this, pool, r.method(), r.target(), r.headers(), r.body()));
        }
        List<Map.Entry<String, String>> headers;
        try {
            headers = destination.headers().forAttempt(hook, attempt, Math.floorDiv(nowMillis, 1000));
        } catch (RuntimeException e) {
            return CompletableFuture.completedFuture(failure(AttemptResult.Failure.PROTOCOL, "cannot build the request"));
        }
        return queue(pool(destination.name()), headers, hook.body());
    }

    /** Starts every attempt queued by {@link #send(Destination, StoredHook, int, long)} since the last flush. */
    @Override
    public void flush() {
        for (Pool[] perLoop : pools.values()) {
            for (Pool pool : perLoop) {
                if (!pool.queued.isEmpty()) {
                    scheduleStart(pool);
                }
            }
        }
    }

    /**
     * Sends one attempt now (queued and its start scheduled at once); the future completes
     * on the destination's event loop, never exceptionally.
     */
    CompletableFuture<AttemptOutcome> send(String destination, List<Map.Entry<String, String>> headers, byte[] body) {
        Pool pool = pool(destination);
        CompletableFuture<AttemptOutcome> f = queue(pool, headers, body);
        scheduleStart(pool);
        return f;
    }

    /** The pool of {@code destination} with the fewest attempts out; its home pool on a tie. */
    private Pool pool(String destination) {
        Pool[] perLoop = pools.get(destination);
        if (perLoop == null) {
            throw new IllegalArgumentException("no destination " + destination + " is registered");
        }
        Pool best = perLoop[0];
        int least = best.live.size();
        for (int i = 1; i < perLoop.length && least > 0; i++) {
            int out = perLoop[i].live.size();
            if (out < least) {
                best = perLoop[i];
                least = out;
            }
        }
        return best;
    }

    private CompletableFuture<AttemptOutcome> queue(Pool pool, List<Map.Entry<String, String>> headers, byte[] body) {
        return queue(pool, new HttpAttempt(this, pool, headers, body));
    }

    private CompletableFuture<AttemptOutcome> queue(Pool pool, HttpAttempt a) {
        pool.live.add(a);
        pool.queued.add(a);
        if (closed.get()) { // closed, perhaps after close() swept the pool: nothing will start it
            a.complete(failure(AttemptResult.Failure.CONNECT, "client closed"), null);
        }
        return a.future;
    }

    /** Attempts queued for {@code destination} and not yet started (for tests). */
    int queued(String destination) {
        return Arrays.stream(pools.get(destination)).mapToInt(p -> p.queued.size()).sum();
    }

    /** Attempts to {@code destination} not completed yet, on each of its pools, home first (for tests). */
    int[] outstanding(String destination) {
        return Arrays.stream(pools.get(destination)).mapToInt(p -> p.live.size()).toArray();
    }

    /** Submits a run of {@link #startQueued} to the pool's loop unless one is pending. */
    private void scheduleStart(Pool pool) {
        if (pool.startScheduled.compareAndSet(false, true)) {
            try {
                pool.loop.execute(() -> startQueued(pool));
            } catch (RejectedExecutionException e) { // the loop is shutting down: the client is closing
                pool.startScheduled.set(false);
                failQueued(pool);
            }
        }
    }

    /** On the pool's loop: starts every queued attempt (a timer, then a pooled or a new connection). */
    private void startQueued(Pool pool) {
        pool.startScheduled.set(false); // an attempt queued from now on schedules another run
        for (HttpAttempt ex = pool.queued.poll(); ex != null; ex = pool.queued.poll()) {
            if (closed.get()) {
                ex.complete(failure(AttemptResult.Failure.CONNECT, "client closed"), null);
                continue;
            }
            ex.timer = pool.loop.schedule(ex::timedOut, pool.destination.timeoutMs(), TimeUnit.MILLISECONDS);
            Channel idle = pool.takeIdle();
            if (idle != null) {
                ex.pooled = true;
                ex.start(idle);
            } else {
                connect(pool, ex);
            }
        }
    }

    /** Completes every attempt still queued as failed (the client is closing). */
    private static void failQueued(Pool pool) {
        for (HttpAttempt ex = pool.queued.poll(); ex != null; ex = pool.queued.poll()) {
            ex.complete(failure(AttemptResult.Failure.CONNECT, "client closed"), null);
        }
    }

    /**
     * Closes every connection and ends every attempt not completed yet as failed
     * ({@code client closed}); stops the event loops if they are the client's own (waits a
     * bounded time for them), leaves borrowed ones running.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        if (ownsGroup) {
            group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(10, TimeUnit.SECONDS);
        }
        // every attempt not completed yet: on lent loops, whatever is out; on our own stopped
        // loops, one queued after the loop's last run, or one whose completion was to run on
        // the stopped loop (a connect that raced the shutdown: its listener is never run),
        // which would otherwise hang forever
        for (Pool pool : pools.values().stream().flatMap(Arrays::stream).toList()) {
            pool.queued.clear(); // each one is in live too
            for (HttpAttempt ex : pool.live) {
                AttemptOutcome closing = failure(AttemptResult.Failure.CONNECT, "client closed");
                if (ownsGroup) {
                    ex.complete(closing, null); // its connection went with the loop
                } else {
                    ex.abort(closing);
                }
            }
            if (!ownsGroup) {
                try {
                    pool.loop.execute(pool::closeIdle);
                } catch (RejectedExecutionException e) {
                    // the loops are stopping: their connections close with them
                }
            }
        }
    }

    // ------------------------------------------------------------------ connecting

    /** Opens a connection for {@code a} on its pool's loop (TLS when the destination is {@code https}), then starts it. */
    void connect(Pool pool, HttpAttempt a) {
        Bootstrap b = new Bootstrap().group(pool.loop).channel(channelClass)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, pool.destination.timeoutMs()))
                .option(ChannelOption.TCP_NODELAY, true)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        if (pool.ssl != null) {
                            SslHandler tls = pool.ssl.newHandler(ch.alloc(), pool.host, pool.port);
                            SSLParameters params = tls.engine().getSSLParameters();
                            params.setEndpointIdentificationAlgorithm("HTTPS"); // hostname verification
                            tls.engine().setSSLParameters(params);
                            ch.pipeline().addLast("tls", tls);
                        }
                        ch.pipeline().addLast("codec", new HttpClientCodec(MAX_INITIAL_LINE, MAX_HEADER_BYTES, 8192));
                        ch.pipeline().addLast("answer", new AnswerHandler(wall));
                    }
                });
        ChannelFuture cf = b.connect(pool.host, pool.port);
        a.connecting = cf;
        cf.addListener(f -> {
            if (!f.isSuccess()) {
                a.complete(failure(AttemptResult.Failure.CONNECT, connectError(f.cause())), null);
                return;
            }
            Channel ch = cf.channel();
            if (pool.ssl == null) {
                a.start(ch);
                return;
            }
            ch.pipeline().get(SslHandler.class).handshakeFuture().addListener(h -> {
                if (h.isSuccess()) {
                    a.start(ch);
                } else {
                    ch.close();
                    a.complete(failure(AttemptResult.Failure.CONNECT, "tls handshake failed: " + brief(h.cause())), null);
                }
            });
        });
    }

    private static SslContext sslContext(Destination d) {
        HttpTarget t = target(d);
        if (!t.https()) {
            return null;
        }
        try {
            SslContextBuilder b = SslContextBuilder.forClient();
            if (t.caFile().isPresent()) {
                b.trustManager(t.caFile().get().toFile());
            }
            return b.build();
        } catch (SSLException | IllegalArgumentException e) {
            throw new IllegalStateException("destinations." + d.name() + ".ca_file: cannot build a TLS context from "
                    + t.caFile().map(Object::toString).orElse("the JDK trust store") + ": " + e.getMessage(), e);
        }
    }

    static HttpTarget target(Destination d) {
        return d.target(HttpTarget.class);
    }
}
