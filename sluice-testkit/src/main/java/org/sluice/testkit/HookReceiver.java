package org.sluice.testkit;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpServerExpectContinueHandler;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.sluice.core.Clock;

/**
 * A scriptable HTTP/1.1 receiver on a free loopback port, standing in for a delivery
 * destination: it records every request and answers from a plan.
 *
 * <ul>
 *   <li><b>Record.</b> Each request, once its body is complete, becomes a {@link Received}:
 *       method, path (with query), headers (names lower-cased, in arrival order), body
 *       bytes, arrival time from the injected {@link Clock}, and the number of the
 *       connection it came on (1, 2, ... in accept order, across restarts).</li>
 *   <li><b>Answer.</b> Each request takes the next {@link Answer} of the plan
 *       ({@link #plan(Answer...)}) in arrival order, or the default answer
 *       ({@link #defaultAnswer(Answer)}, 200 with no body unless set) when the plan is empty.
 *       An answer is a status with headers and body, sent after an optional delay;
 *       {@link Answer#reset()} closes the connection with a TCP RST instead;
 *       {@link Answer#hang()} never answers (the connection stays open until the client
 *       gives up or the receiver stops).</li>
 *   <li><b>Count.</b> A request is in flight from arrival until its answer is written or
 *       its connection closes; {@link #inFlight()} and {@link #maxInFlight()} report the
 *       current and largest number.</li>
 *   <li><b>Stop and restart.</b> {@link #stop()} closes the listener and every connection
 *       (clients then get refused connections); {@link #restart()} listens again on the same
 *       port, keeping the record, the plan and the counters.</li>
 * </ul>
 *
 * <p>Requests pipelined on one connection are answered in order: a later one waits for the
 * answer of the earlier one (so one {@code hang} stalls its connection, as it would on a
 * real server).
 *
 * <p>Threads: two Netty event loops do all socket work. The record, the plan and the
 * counters are guarded by one monitor, held only for a few field updates and never across
 * I/O; the await methods wait on that monitor (no polling). Stop, restart and close take a
 * second monitor that the event loops never touch, so binding (which needs an event loop)
 * cannot wait on a loop that waits on it. This is a fixture, not a server.
 */
public final class HookReceiver implements AutoCloseable {

    private static final int MAX_BODY_BYTES = 64 * 1024 * 1024;

    private final Clock clock;
    private final EventLoopGroup loops;
    private final ChannelGroup connections;
    private final AtomicLong connectionIds = new AtomicLong();
    private final Object lock = new Object();
    /** Serializes stop, restart and close; never taken on an event loop (binding needs one). */
    private final Object lifecycle = new Object();
    private final int port;

    // guarded by lock
    private final List<Received> received = new ArrayList<>();
    private final ArrayDeque<Answer> plan = new ArrayDeque<>();
    private Answer defaultAnswer = Answer.status(200);
    private final List<Rule> rules = new ArrayList<>();
    private int inFlight;
    private int maxInFlight;

    // guarded by lifecycle
    private Channel listener;
    private boolean closed;

    private HookReceiver(Clock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
        this.loops = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
        this.connections = new DefaultChannelGroup("hook-receiver", GlobalEventExecutor.INSTANCE);
        Channel first;
        try {
            first = bind(0);
        } catch (RuntimeException e) {
            loops.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
            throw e;
        }
        this.port = ((InetSocketAddress) first.localAddress()).getPort();
        synchronized (lifecycle) {
            this.listener = first;
        }
    }

    /** A receiver on a free loopback port, stamping arrivals with {@link System#nanoTime()}. */
    public static HookReceiver start() {
        return new HookReceiver(Clock.system());
    }

    /** A receiver on a free loopback port, stamping arrivals with {@code clock}. */
    public static HookReceiver start(Clock clock) {
        return new HookReceiver(clock);
    }

    public int port() {
        return port;
    }

    /** {@code http://127.0.0.1:<port><path>}; {@code path} starts with a slash. */
    public URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }

    // ------------------------------------------------------------------ plan

    /** Appends answers to the plan; each is used by exactly one request, in arrival order. */
    public HookReceiver plan(Answer... answers) {
        synchronized (lock) {
            for (Answer a : answers) {
                plan.add(Objects.requireNonNull(a, "answer"));
            }
        }
        return this;
    }

    /** The answer for requests that find the plan empty. */
    public HookReceiver defaultAnswer(Answer answer) {
        synchronized (lock) {
            defaultAnswer = Objects.requireNonNull(answer, "answer");
        }
        return this;
    }

    /**
     * Answers every request matching {@code when} with {@code answer}, before the plan and
     * the default answer; the first rule added that matches wins.
     */
    public HookReceiver answerWhen(java.util.function.Predicate<Received> when, Answer answer) {
        synchronized (lock) {
            rules.add(new Rule(Objects.requireNonNull(when, "when"), Objects.requireNonNull(answer, "answer")));
        }
        return this;
    }

    /** Drops every rule of {@link #answerWhen}. */
    public HookReceiver clearRules() {
        synchronized (lock) {
            rules.clear();
        }
        return this;
    }

    private record Rule(java.util.function.Predicate<Received> when, Answer answer) {
    }

    /** Planned answers not yet used. */
    public int planned() {
        synchronized (lock) {
            return plan.size();
        }
    }

    // ------------------------------------------------------------------ record

    /** Every request received so far, in arrival order. */
    public List<Received> received() {
        synchronized (lock) {
            return List.copyOf(received);
        }
    }

    public int requestCount() {
        synchronized (lock) {
            return received.size();
        }
    }

    /** Requests received and not yet answered (nor dropped with their connection). */
    public int inFlight() {
        synchronized (lock) {
            return inFlight;
        }
    }

    /** The largest {@link #inFlight()} seen since the receiver started. */
    public int maxInFlight() {
        synchronized (lock) {
            return maxInFlight;
        }
    }

    /** Connections accepted since the receiver started. */
    public long connectionsAccepted() {
        return connectionIds.get();
    }

    /**
     * Waits until at least {@code n} requests have arrived and returns the first {@code n};
     * fails with what did arrive when {@code timeout} passes first.
     */
    public List<Received> awaitRequests(int n, Duration timeout) throws InterruptedException {
        synchronized (lock) {
            awaitLocked(() -> received.size() >= n, timeout,
                    () -> "expected " + n + " requests within " + timeout + ", got " + received.size() + ": " + received);
            return List.copyOf(received.subList(0, n));
        }
    }

    /** Waits until exactly {@code n} requests are in flight; fails when {@code timeout} passes first. */
    public void awaitInFlight(int n, Duration timeout) throws InterruptedException {
        synchronized (lock) {
            awaitLocked(() -> inFlight == n, timeout,
                    () -> "expected " + n + " requests in flight within " + timeout + ", got " + inFlight);
        }
    }

    private void awaitLocked(BooleanSupplier done, Duration timeout, java.util.function.Supplier<String> failure)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!done.getAsBoolean()) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new AssertionError(failure.get());
            }
            TimeUnit.NANOSECONDS.timedWait(lock, left);
        }
    }

    // ------------------------------------------------------------------ lifecycle

    /** Closes the listener and every open connection; requests then find the port refusing. */
    public void stop() {
        synchronized (lifecycle) {
            if (listener != null) {
                listener.close().syncUninterruptibly();
                listener = null;
            }
            connections.close().syncUninterruptibly();
        }
    }

    /** Listens again on the same port after {@link #stop()}; a no-op while running. */
    public void restart() {
        synchronized (lifecycle) {
            if (closed) {
                throw new IllegalStateException("the receiver is closed");
            }
            if (listener != null) {
                return;
            }
            listener = bind(port);
        }
    }

    public boolean isRunning() {
        synchronized (lifecycle) {
            return listener != null;
        }
    }

    @Override
    public void close() {
        synchronized (lifecycle) {
            if (closed) {
                return;
            }
            closed = true;
            stop();
        }
        loops.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private Channel bind(int onPort) {
        ServerBootstrap b = new ServerBootstrap()
                .group(loops)
                .channel(NioServerSocketChannel.class)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        connections.add(ch);
                        ch.pipeline().addLast(new HttpServerCodec());
                        ch.pipeline().addLast(new HttpServerExpectContinueHandler());
                        ch.pipeline().addLast(new HttpObjectAggregator(MAX_BODY_BYTES));
                        ch.pipeline().addLast(new Connection(connectionIds.incrementAndGet()));
                    }
                });
        return b.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), onPort)).syncUninterruptibly().channel();
    }

    // ------------------------------------------------------------------ one connection

    /** Last in the pipeline of one connection; all its state is touched on its event loop only. */
    private final class Connection extends SimpleChannelInboundHandler<FullHttpRequest> {

        private final long id;
        /** Answers for requests of this connection not yet answered, in arrival order. */
        private final ArrayDeque<Pending> queue = new ArrayDeque<>();
        /** Requests of this connection counted in flight and not yet answered. */
        private int unanswered;
        private boolean busy;

        Connection(long id) {
            this.id = id;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
            if (req.decoderResult().isFailure()) {
                FullHttpResponse bad = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.BAD_REQUEST);
                HttpUtil.setContentLength(bad, 0);
                ctx.writeAndFlush(bad).addListener(ChannelFutureListener.CLOSE);
                return;
            }
            Map<String, List<String>> headers = new LinkedHashMap<>();
            for (Map.Entry<String, String> h : req.headers()) {
                headers.computeIfAbsent(h.getKey().toLowerCase(Locale.ROOT), k -> new ArrayList<>()).add(h.getValue());
            }
            headers.replaceAll((k, v) -> List.copyOf(v));
            Received r = new Received(req.method().name(), req.uri(), Collections.unmodifiableMap(headers),
                    ByteBufUtil.getBytes(req.content()), clock.nanoTime(), id);
            Answer answer;
            synchronized (lock) {
                received.add(r);
                answer = rules.stream().filter(rule -> rule.when().test(r)).map(Rule::answer).findFirst()
                        .orElseGet(() -> plan.isEmpty() ? defaultAnswer : plan.poll());
                inFlight++;
                maxInFlight = Math.max(maxInFlight, inFlight);
                lock.notifyAll();
            }
            unanswered++;
            queue.add(new Pending(answer, HttpUtil.isKeepAlive(req)));
            if (!busy) {
                next(ctx);
            }
        }

        private void next(ChannelHandlerContext ctx) {
            Pending p = queue.poll();
            if (p == null) {
                busy = false;
                return;
            }
            busy = true;
            switch (p.answer.kind) {
                case HANG -> { }
                case RESET -> {
                    // SO_LINGER 0 makes close() send RST instead of FIN
                    ctx.channel().config().setOption(ChannelOption.SO_LINGER, 0);
                    ctx.close();
                }
                case RESPOND -> {
                    if (p.answer.delayNanos > 0) {
                        ctx.executor().schedule(() -> respond(ctx, p), p.answer.delayNanos, TimeUnit.NANOSECONDS);
                    } else {
                        respond(ctx, p);
                    }
                }
            }
        }

        private void respond(ChannelHandlerContext ctx, Pending p) {
            if (!ctx.channel().isActive()) {
                return;
            }
            Answer a = p.answer;
            FullHttpResponse res = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                    HttpResponseStatus.valueOf(a.status), Unpooled.wrappedBuffer(a.body));
            for (String[] h : a.headers) {
                res.headers().add(h[0], h[1]);
            }
            HttpUtil.setContentLength(res, a.body.length);
            if (!p.keepAlive) {
                res.headers().set(HttpHeaderNames.CONNECTION, "close");
            }
            answered();
            if (p.keepAlive) {
                ctx.writeAndFlush(res);
                next(ctx);
            } else {
                ctx.writeAndFlush(res).addListener(ChannelFutureListener.CLOSE);
            }
        }

        private void answered() {
            unanswered--;
            synchronized (lock) {
                inFlight--;
                lock.notifyAll();
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) throws Exception {
            if (unanswered > 0) {
                synchronized (lock) {
                    inFlight -= unanswered;
                    lock.notifyAll();
                }
                unanswered = 0;
            }
            queue.clear();
            super.channelInactive(ctx);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close(); // a client reset or a read error: the connection is gone, nothing to report
        }
    }

    private record Pending(Answer answer, boolean keepAlive) {
    }

    // ------------------------------------------------------------------ values

    /** One request as it arrived. */
    public record Received(String method, String path, Map<String, List<String>> headers, byte[] body,
                           long arrivedNanos, long connection) {

        /** The first value of header {@code name} (any case), or null. */
        public String header(String name) {
            List<String> values = headers.get(name.toLowerCase(Locale.ROOT));
            return values == null || values.isEmpty() ? null : values.get(0);
        }

        /** Every value of header {@code name} (any case), in arrival order. */
        public List<String> headerValues(String name) {
            return headers.getOrDefault(name.toLowerCase(Locale.ROOT), List.of());
        }

        public String bodyText() {
            return new String(body, StandardCharsets.UTF_8);
        }

        @Override
        public String toString() {
            return method + " " + path + " (" + body.length + " bytes, connection " + connection + ")";
        }
    }

    /** What the receiver does with one request. Immutable; the {@code with} methods return a copy. */
    public static final class Answer {

        private enum Kind { RESPOND, RESET, HANG }

        private final Kind kind;
        private final int status;
        private final List<String[]> headers;
        private final byte[] body;
        private final long delayNanos;

        private Answer(Kind kind, int status, List<String[]> headers, byte[] body, long delayNanos) {
            this.kind = kind;
            this.status = status;
            this.headers = headers;
            this.body = body;
            this.delayNanos = delayNanos;
        }

        /** Answers with {@code status}, no headers beyond content-length, and an empty body. */
        public static Answer status(int status) {
            if (status < 100 || status > 999) {
                throw new IllegalArgumentException("an HTTP status has three digits, got " + status);
            }
            return new Answer(Kind.RESPOND, status, List.of(), new byte[0], 0);
        }

        /** Closes the connection with a TCP RST instead of answering. */
        public static Answer reset() {
            return new Answer(Kind.RESET, 0, List.of(), new byte[0], 0);
        }

        /** Never answers; the request stays in flight until its connection closes. */
        public static Answer hang() {
            return new Answer(Kind.HANG, 0, List.of(), new byte[0], 0);
        }

        public Answer withHeader(String name, String value) {
            requireRespond("a header");
            List<String[]> h = new ArrayList<>(headers);
            h.add(new String[] {name, value});
            return new Answer(kind, status, List.copyOf(h), body, delayNanos);
        }

        public Answer withBody(String text) {
            return withBody(text.getBytes(StandardCharsets.UTF_8));
        }

        public Answer withBody(byte[] bytes) {
            requireRespond("a body");
            return new Answer(kind, status, headers, bytes.clone(), delayNanos);
        }

        /** Waits {@code delay} after the request arrives (or after the previous answer on its connection). */
        public Answer withDelay(Duration delay) {
            requireRespond("a delay");
            if (delay.isNegative()) {
                throw new IllegalArgumentException("a delay is not negative, got " + delay);
            }
            return new Answer(kind, status, headers, body, delay.toNanos());
        }

        private void requireRespond(String what) {
            if (kind != Kind.RESPOND) {
                throw new IllegalStateException(kind.name().toLowerCase(Locale.ROOT) + " sends no answer, so it takes no " + what);
            }
        }

        @Override
        public String toString() {
            return kind == Kind.RESPOND ? "answer " + status : kind.name().toLowerCase(Locale.ROOT);
        }
    }
}
