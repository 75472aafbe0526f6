package org.sluice.edge.server;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.UnaryOperator;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sluice.core.Clock;
import org.sluice.edge.admin.AdmissionState;
import org.sluice.edge.admin.EdgeAdmin;
import org.sluice.edge.delivery.Replays;
import org.sluice.edge.config.AdminConfig;
import org.sluice.edge.config.Routing;
import org.sluice.edge.config.SluiceConfig;
import org.sluice.edge.delivery.http.ClientLoops;
import org.sluice.edge.config.SourceConfig;
import org.sluice.edge.config.TlsConfig;
import org.sluice.edge.dedupe.DedupeKeys;
import org.sluice.edge.intake.BatchCommitter;
import org.sluice.edge.route.Routes;
import org.sluice.edge.store.HookStore;
import org.sluice.edge.stats.StatsRing;
import org.sluice.edge.threads.Threads;
import org.sluice.edge.verify.Verifiers;
import org.sluice.edge.http.InFlight;
import org.sluice.edge.http.StoredHeaderNames;
import org.sluice.edge.http.HookStage;
import org.sluice.edge.telemetry.Telemetry;
import org.sluice.edge.http.BodyRoomHandler;
import org.sluice.edge.http.RouteHandler;
import org.sluice.edge.http.Router;
import org.sluice.edge.http.BodyAggregator;
import org.sluice.edge.http.BodySizeHandler;
import org.sluice.edge.http.ClientAddressHandler;
import org.sluice.edge.http.ContinueHandler;
import org.sluice.edge.http.SourceRoute;
import org.sluice.edge.http.RequestSyntaxHandler;
import org.sluice.edge.http.HookHandler;
import org.sluice.edge.http.InflightBodies;
import org.sluice.edge.http.ReadDeadlineHandler;
import org.sluice.edge.http.PreReadAdmissionHandler;
import org.sluice.edge.http.PreReadCharges;
import org.sluice.edge.http.IngestMetrics;
import org.sluice.edge.http.InOrderGate;
import org.sluice.edge.http.RefusalFastPath;
import org.sluice.edge.http.ConnectionsPerAddress;
import org.sluice.edge.admission.HostLimits;
import org.sluice.edge.admission.PreReadLimits;
import org.sluice.edge.admission.NodeLimits;
import org.sluice.edge.netio.IoTransport;
import org.sluice.edge.netio.TransportChoice;

/**
 * One Sluice edge node: the ingest listener, the admin listener, the admission state, the
 * intake and the store, started together and stopped together.
 *
 * <pre>{@code
 * try (EdgeServer server = EdgeServer.builder(config).start()) {
 *     int port = server.ingestAddress().getPort();
 *     ...
 * }   // graceful stop: stop accepting, finish in-flight hooks, flush the intake, close the store
 * }</pre>
 *
 * <p>Threads (see docs/concurrency.md): one acceptor and {@code cores} I/O event loops for
 * ingest, one event loop for admin, a worker pool for verification, duplicate lookups and
 * admission after the body, the admin executor ({@code admin.workers} threads), the
 * intake's writer threads, one sweeper thread and one retention thread.
 */
public final class EdgeServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(EdgeServer.class);

    /** How long a graceful stop waits for hooks already in the server. */
    private static final long DRAIN_MILLIS = 20_000L;

    private final SluiceConfig config;
    private final TransportChoice transport;
    private final EventLoopGroup boss;
    private final EventLoopGroup ioLoops;
    private final EventLoopGroup adminLoop;
    private final ForkJoinPool workers;
    private final ThreadPoolExecutor adminWorkers;
    private final ChannelGroup connections = new DefaultChannelGroup("sluice-ingest", GlobalEventExecutor.INSTANCE);
    private final Backends backends;
    private final PrometheusMeterRegistry registry;
    private final Sweeper sweeper;
    private final Retention retention;
    private final InFlight inFlight = new InFlight();
    private final StatsRing stats;
    /** Traces (telemetry.*): started before the dispatcher, closed after everything that makes spans. */
    private final Telemetry telemetry;
    private final Replays replays;
    private Channel listener;
    private AdminServer admin;
    private boolean closed;

    private EdgeServer(SluiceConfig config, Clock clock, LongSupplier epochMillis,
                       UnaryOperator<BatchCommitter> commitWrapper, PipelineSeam seam)
            throws Exception {
        this.config = config;
        int cores = Runtime.getRuntime().availableProcessors();
        this.registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        ProcessMetrics.bindTo(registry);
        this.stats = new StatsRing(epochMillis);
        IngestMetrics metrics = new IngestMetrics(registry, clock, stats);
        this.telemetry = Telemetry.start(config.telemetry(), config.node().id());

        // one transport for every socket of the node: both listeners and the delivery client
        this.transport = config.http().transport().choose();
        IoTransport io = transport.transport();
        // the ingest loops come first: the HTTP delivery client borrows them (ClientLoops)
        this.ioLoops = io.group(cores, "sluice-io");
        try {
            this.backends = Backends.open(config, clock, epochMillis, registry, commitWrapper,
                    new ClientLoops(ioLoops, io), telemetry);
        } catch (RuntimeException | Error e) {
            ioLoops.shutdownGracefully(0, 2, TimeUnit.SECONDS);
            telemetry.close();
            throw e;
        }
        this.replays = new Replays(backends.store(), backends.replaySource(),
                backends.dispatcher() == null ? null : backends.dispatcher()::replayStream, clock, epochMillis);
        try {
            this.workers = new ForkJoinPool(Math.max(2, cores), pool -> {
                var thread = ForkJoinPool.defaultForkJoinWorkerThreadFactory.newThread(pool);
                thread.setName("sluice-worker-" + thread.getPoolIndex());
                thread.setDaemon(true);
                return thread;
            }, null, true);
            this.boss = io.group(1, "sluice-accept");
            this.adminLoop = io.group(1, "sluice-admin");
            this.adminWorkers = adminExecutor(config.admin());
            Gauge.builder("sluice.limiter.rows", backends.tenantRows(), t -> t.size())
                    .description("Rows in the tenant limiter table (swept when full)").register(registry);
            Gauge.builder("sluice.store.healthy", backends.store(), s -> s.isHealthy() ? 1 : 0)
                    .description("1 while the store's writes succeed, 0 from a failed write until one succeeds")
                    .register(registry);
            FunctionCounter.builder("sluice.store.wal.syncs", backends.store(), HookStore::walSyncs)
                    .description("Syncs of the store's write-ahead log (commits that share one count once)")
                    .register(registry);
            FunctionCounter.builder("sluice.store.commit.sync.seconds", backends.store(), HookStore::commitSyncSeconds)
                    .description("Time the group commits' log syncs took, one at a time: its rate is the share of time"
                            + " a sync was in progress")
                    .register(registry);
            for (boolean fromMemory : new boolean[] {true, false}) {
                FunctionCounter.builder("sluice.delivery.hook.reads", backends.store(), s -> s.deliveryReads(fromMemory))
                        .tag("from", fromMemory ? "memory" : "store")
                        .description("Hooks the dispatcher read to send them, from memory (kept by their commit) or from the store")
                        .register(registry);
            }
            FunctionCounter.builder("sluice.limiter.swept", backends.tenantRows(), t -> t.swept())
                    .description("Limiter rows deleted by the sweeper").register(registry);
            if (backends.fleet() != null) {
                backends.fleet().bindMetrics(registry);
            }

            Pipeline pipeline = new Pipeline(config, clock, epochMillis, metrics, seam);
            ServerBootstrap bootstrap = new ServerBootstrap().group(boss, ioLoops).childHandler(pipeline);
            if (!ListenerOptions.configure(bootstrap, io, config.http().reusePort())) {
                throw new IllegalArgumentException("http.reuse_port needs a native transport (io_uring or epoll), and"
                        + " the node runs on " + transport);
            }
            this.listener = bootstrap.bind(config.http().listen().socketAddress()).sync().channel();
            this.admin = AdminServer.start(config.admin(), config.admin().tls().map(EdgeServer::serverTls).orElse(null),
                    io, adminLoop, registry, adminWorkers,
                    EdgeAdmin.handler(config, backends.limits(), backends.overrides(), backends.store(), backends.intake(),
                            () -> admissionTables(pipeline, clock),
                            backends.host() == null ? null : backends.host()::stats,
                            backends.host() == null ? null : backends.host()::resetTenant, adminWorkers,
                            backends.fleet() == null ? null : backends.fleet()::admissionState,
                            backends.fleet() == null ? null : backends.fleet()::resetTenant,
                            stats, backends.sink()::notReadyReason,
                            backends.dispatcher() == null ? null : backends.dispatcher().activity(),
                            backends.dispatcher() == null ? null : backends.dispatcher()::pausedChanged, replays,
                            epochMillis, backends.log(), backends.kindWithoutDelivery(), backends.fleetDeliveries(),
                            backends.rotations()));
            this.sweeper = new Sweeper(backends, clock, epochMillis);
            this.retention = new Retention(backends.store(), backends.storeSize(), config.retention(), epochMillis,
                    registry);
        } catch (Exception | Error e) {
            closeQuietly();
            throw e;
        }
        LOG.info("sluice-edge started: ingest {} admin {} transport {} | {}", ingestAddress(), adminAddress(),
                transport, config.summary());
    }

    /**
     * The admin executor: {@code admin.workers} threads for the {@code /v1} routes and the
     * {@code /metrics} rendering, apart from the ingest workers so that a flood of hooks
     * never queues ahead of an operator. At most {@code 2 x admin.max_connections} requests
     * wait; one more is answered 503.
     */
    private static ThreadPoolExecutor adminExecutor(AdminConfig admin) {
        return new ThreadPoolExecutor(admin.workers(), admin.workers(), 0L, TimeUnit.MILLISECONDS,
                new ArrayBlockingQueue<>(2 * admin.maxConnections()), Threads.numbered("sluice-admin-worker-", 0),
                new ThreadPoolExecutor.AbortPolicy());
    }

    /** The server side of {@code http.tls} or {@code admin.tls}: PEM files, JDK provider. */
    private static SslContext serverTls(TlsConfig tls) {
        try {
            return SslContextBuilder.forServer(tls.certFile().toFile(), tls.keyFile().toFile())
                    .sslProvider(SslProvider.JDK).build();
        } catch (SSLException e) {
            throw new IllegalStateException("cannot use the TLS certificate " + tls.certFile() + " and key "
                    + tls.keyFile() + ": " + e.getMessage(), e);
        }
    }

    /** The transport every socket of the node runs on, and why (as the boot line says). */
    TransportChoice transport() {
        return transport;
    }

    /** The ingest worker pool (tests hold it busy to show the admin listener does not share it). */
    ForkJoinPool ingestWorkers() {
        return workers;
    }

    /** The limiter tables for {@code GET /v1/admission} (under host scope the arena's figures stand for the pre-read ones). */
    private List<AdmissionState.Table> admissionTables(Pipeline pipeline, Clock clock) {
        List<AdmissionState.Table> tables = new java.util.ArrayList<>();
        if (pipeline.preRead instanceof NodeLimits local) {
            for (NodeLimits.TableReading t : local.tables(clock.nanoTime())) {
                tables.add(new AdmissionState.Table(t.name(), t.rows(), t.swept()));
            }
        }
        tables.add(new AdmissionState.Table("tenant", backends.tenantRows().size(), backends.tenantRows().swept()));
        return tables;
    }

    /** A builder for a server running {@code config}. */
    public static Builder builder(SluiceConfig config) {
        return new Builder(config);
    }

    /** The ingest listener's bound address (its port when the config asked for port 0). */
    public InetSocketAddress ingestAddress() {
        return (InetSocketAddress) listener.localAddress();
    }

    /** The admin listener's bound address. */
    public InetSocketAddress adminAddress() {
        return admin.address();
    }

    /** The configuration this server runs. */
    public SluiceConfig config() {
        return config;
    }

    /** Rows in the tenant limiter table now (for tests and the metrics). */
    public int limiterRows() {
        return backends.tenantRows().size();
    }

    /** The store, intake and tenant state (tests in this package reach the store through it). */
    Backends backends() {
        return backends;
    }

    /** Runs one sweep tick now (the sweeper thread does this every 3.75 s). */
    public void sweepOnce() {
        sweeper.tick();
    }

    /** Runs one retention tick now (the retention thread does this every second): passes, size, reclaim. */
    void retainOnce() {
        retention.tick();
    }

    /**
     * Graceful stop: stop accepting, flush the intake (every hook it holds is committed and
     * answered; hooks arriving after this are answered 503 overload), wait until every hook
     * in the server has its answer, close the connections, close the store. Idempotent.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        LOG.info("sluice-edge stopping: no new connections, draining {} hooks in flight", inFlight.count());
        listener.close().syncUninterruptibly();
        inFlight.startDraining();        // from now on every answer closes its connection
        backends.flushIntake();          // every queued hook commits (or is refused) and is answered
        if (!inFlight.awaitIdle(DRAIN_MILLIS)) {
            LOG.warn("sluice-edge stop: {} hooks still in flight after {} ms; closing anyway", inFlight.count(),
                    DRAIN_MILLIS);
        }
        connections.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        closeQuietly();
        LOG.info("sluice-edge stopped");
    }

    private void closeQuietly() {
        if (sweeper != null) {
            sweeper.close();
        }
        if (retention != null) {
            retention.close(); // before the store closes
        }
        if (admin != null) {
            admin.close();
        }
        if (listener != null) {
            listener.close().syncUninterruptibly();
        }
        backends.closeDispatcher(); // while the loops its HTTP client borrowed still run
        for (EventLoopGroup group : new EventLoopGroup[] {boss, ioLoops, adminLoop}) {
            if (group != null) {
                group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
            }
        }
        for (ExecutorService pool : new ExecutorService[] {adminWorkers, workers}) {
            if (pool != null) {
                pool.shutdown();
            }
        }
        for (ExecutorService pool : new ExecutorService[] {adminWorkers, workers}) {
            if (pool != null) {
                Threads.awaitStopped(pool, 5); // an admin PUT finishes its fsync before the store closes
            }
        }
        replays.close();
        backends.close(); // flushes the intake, then closes the store
        telemetry.close(); // exports the last spans, the dispatcher's attempts' among them
        registry.close();
    }

    // ================================================================ the pipeline

    /**
     * Builds each connection's pipeline, in order:
     * <pre>
     *   [SslHandler]               http.tls, JDK provider
     *   [RefusalFastPath]          rate_limits.per_ip: a request the pipeline would answer
     *                              429 ip, connection kept, is answered here from its bytes
     *   HttpServerCodec            framing; header block capped at http.max_header_bytes
     *   [ConnectionsPerAddress]    http.max_connections_per_ip: 503 overload at connect
     *   InOrderGate                holds pipelined requests until the one before is answered
     *   ReadDeadlineHandler        http.read_timeout_ms, one request at a time
     *   RequestSyntaxHandler       400 / 431 / 400 invalid_header           -> IngestExchange
     *   RouteHandler               404s, /healthz, /readyz; source and tenant
     *   ClientAddressHandler       peer or X-Forwarded-For; 400 invalid_forwarded_for
     *   BodySizeHandler            413 on the declared length, before any charge
     *   PreReadAdmissionHandler    429 ip | node | source (declared bytes checked); http.refused_body
     *   BodyRoomHandler            503 overload: http.max_inflight_body_bytes
     *   ContinueHandler            100 Continue, only now
     *   BodyAggregator             reads the body into a growing buffer; 413 / 503 mid-stream;
     *                              the received bytes charged to the source      -> ReceivedHook
     *   HookHandler                worker stage: 401, 200 duplicate, 429 tenant*, 503, 202
     * </pre>
     * The handlers without state of their own ({@code @Sharable}) are built once and shared by
     * every connection; {@code InOrderGate}, {@code ReadDeadlineHandler},
     * {@code PreReadAdmissionHandler}, {@code BodyAggregator} and the per-address gate keep
     * the connection's state in fields and are built per connection.
     * An answer given before its request's body was read replaces the codec with a
     * {@code LingeringClose}, which drains and closes the connection.
     */
    private final class Pipeline extends ChannelInitializer<Channel> {

        private final SslContext ssl;
        private final HttpDecoderConfig decoderConfig;
        private final PreReadLimits preRead;
        private final PreReadCharges charges;
        private final IngestMetrics metrics;
        private final InflightBodies bodies;
        private final ConnectionsPerAddress perAddress;
        // the stateless handlers (@Sharable): one instance each, in every connection's pipeline
        private final RequestSyntaxHandler syntax;
        private final RouteHandler route;
        private final ClientAddressHandler client;
        private final BodySizeHandler bodySize;
        private final BodyRoomHandler bodyRoom;
        private final ContinueHandler proceed;
        private final HookHandler hook;
        /** Null unless rate_limits.per_ip is set outside shadow mode under routing: path. */
        private final RefusalFastPath.Shared fastPath;
        private final PipelineSeam seam;

        Pipeline(SluiceConfig config, Clock clock, LongSupplier epochMillis, IngestMetrics metrics, PipelineSeam seam) {
            this.seam = seam;
            this.metrics = metrics;
            boolean shadow = config.rateLimits().shadow();
            this.ssl = config.http().tls().map(EdgeServer::serverTls).orElse(null);
            this.decoderConfig = new HttpDecoderConfig()
                    .setMaxHeaderSize(config.http().maxHeaderBytes())
                    .setMaxInitialLineLength(8192)
                    .setMaxChunkSize(64 * 1024)
                    .setValidateHeaders(false);
            Map<String, SourceRoute> sources = new LinkedHashMap<>();
            Map<String, Long> sourceBytes = new LinkedHashMap<>();
            for (SourceConfig source : config.sources().values()) {
                String keyPath = "sources." + source.id();
                sources.put(source.id(), new SourceRoute(source.id(), source.tenant().orElse(null),
                        Verifiers.create(source.verify(), keyPath + ".verify"),
                        DedupeKeys.create(source.dedupe(), keyPath + ".dedupe"),
                        Routes.of(source.deliverTo(), source.filters(), source.eventType()), storedHeaders(source, config)));
                sourceBytes.put(source.id(), source.bytesPerSecond());
            }
            Router router = new Router(config.http().prefix(), config.http().routing() == Routing.TENANT_PATH, sources);
            this.preRead = backends.host() != null
                    ? new HostLimits(backends.host(), config.rateLimits().perIp(), config.rateLimits().node(), sourceBytes)
                    : new NodeLimits(config.rateLimits().perIp(), config.rateLimits().node(), sourceBytes);
            this.charges = new PreReadCharges(preRead, clock, shadow, metrics);
            HookStage stage = new HookStage(backends.tenants(), backends.sink(), metrics, epochMillis, workers, telemetry);
            this.bodies = new InflightBodies(config.http().maxInflightBodyBytes());
            Gauge.builder("sluice.http.inflight.body.bytes", bodies, InflightBodies::held)
                    .description("Body buffer bytes held by ingest requests in flight (http.max_inflight_body_bytes)")
                    .register(registry);
            Counter refusedConnections = Counter.builder("sluice.http.connections.refused")
                    .description("Ingest connections refused at connect (http.max_connections_per_ip)")
                    .register(registry);
            this.perAddress = config.http().maxConnectionsPerIp() == 0 ? null
                    : new ConnectionsPerAddress(config.http().maxConnectionsPerIp(), refusedConnections);
            this.syntax = new RequestSyntaxHandler(clock, metrics);
            this.route = new RouteHandler(router, backends.sink()::notReadyReason, metrics);
            this.client = new ClientAddressHandler(config.http().trustedProxies()::contains, metrics);
            this.bodySize = new BodySizeHandler(backends.tenants()::bodyLimit, metrics);
            this.bodyRoom = new BodyRoomHandler(bodies, metrics);
            this.proceed = new ContinueHandler(metrics);
            this.hook = new HookHandler(stage, workers, metrics, inFlight, bodies);
            this.fastPath = config.rateLimits().perIp().isPresent() && !shadow && seam.refusalFastPath()
                    && config.http().routing() != Routing.TENANT_PATH
                    ? new RefusalFastPath.Shared(preRead, clock, config.http().refusedBody(), metrics,
                            backends.tenants()::bodyLimit, config.http().trustedProxies()::contains, router,
                            config.http().maxHeaderBytes())
                    : null;
        }

        @Override
        protected void initChannel(Channel ch) {
            connections.add(ch);
            ChannelPipeline p = ch.pipeline();
            if (seam.first() != null) {
                p.addLast("test-seam", seam.first().apply(ch));
            }
            if (ssl != null) {
                p.addLast("tls", ssl.newHandler(ch.alloc()));
            }
            InOrderGate gate = new InOrderGate();
            if (fastPath != null) {
                p.addLast("fast-refusal", new RefusalFastPath(fastPath, gate));
            }
            p.addLast("codec", new HttpServerCodec(decoderConfig));
            if (perAddress != null) {
                p.addLast("per-address", perAddress.handler());
            }
            p.addLast("in-order", gate);
            p.addLast("deadline", new ReadDeadlineHandler(config.http().readTimeoutMs(), metrics));
            p.addLast("syntax", syntax);
            p.addLast("route", route);
            p.addLast("client", client);
            p.addLast("body-size", bodySize);
            p.addLast("pre-read", new PreReadAdmissionHandler(charges, config.http().refusedBody()));
            p.addLast("body-room", bodyRoom);
            p.addLast("continue", proceed);
            p.addLast("body", new BodyAggregator(charges, bodies));
            p.addLast("hook", hook);
        }
    }

    /** Builds an {@link EdgeServer}. */
    public static final class Builder {

        private final SluiceConfig config;
        private Clock clock = Clock.system();
        private LongSupplier epochMillis = System::currentTimeMillis;
        private UnaryOperator<BatchCommitter> commitWrapper = UnaryOperator.identity();
        private PipelineSeam seam = PipelineSeam.NONE;

        private Builder(SluiceConfig config) {
            this.config = config;
        }

        /** The monotonic clock every limiter reads (tests pass a manual one). */
        public Builder clock(Clock clock) {
            this.clock = clock;
            return this;
        }

        /** Wall-clock milliseconds: signature timestamps, received-at, the dedupe window. */
        public Builder epochMillis(LongSupplier epochMillis) {
            this.epochMillis = epochMillis;
            return this;
        }

        /** TEST SEAM (package-private): wraps the intake's commit, for example to make it fail. */
        Builder commitWrapper(UnaryOperator<BatchCommitter> wrapper) {
            this.commitWrapper = wrapper;
            return this;
        }

        /** TEST SEAM (package-private): changes each connection's pipeline (see {@link PipelineSeam}). */
        Builder pipelineSeam(PipelineSeam seam) {
            this.seam = java.util.Objects.requireNonNull(seam, "seam");
            return this;
        }

        /** Opens the store, binds both listeners and starts serving. */
        public EdgeServer start() {
            try {
                return new EdgeServer(config, clock, epochMillis, commitWrapper, seam);
            } catch (RuntimeException e) {
                throw e;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while starting", e);
            } catch (Exception e) {
                throw new IllegalStateException("sluice-edge could not start: " + e.getMessage(), e);
            }
        }
    }

    /**
     * The headers {@code source}'s hooks are stored with: every one under {@code store_headers:
     * all}; else {@code Content-Type}, the verification scheme's, the dedupe header, each
     * {@code deliver_to} destination's {@code forward_headers} and the names
     * {@code store_headers} lists.
     */
    static StoredHeaderNames storedHeaders(SourceConfig source, SluiceConfig config) {
        if (source.storeHeaders().all()) {
            return StoredHeaderNames.ALL;
        }
        List<String> names = new ArrayList<>();
        names.add("Content-Type");
        names.addAll(Verifiers.headerNames(source.verify()));
        if (source.dedupe().kind() == org.sluice.edge.dedupe.DedupeSpec.Kind.HEADER) {
            names.add(source.dedupe().argument());
        }
        for (String name : source.deliverTo()) {
            org.sluice.edge.delivery.Destination d = config.destinations().get(name);
            if (d != null) {
                names.addAll(d.headers().forwardNames());
            }
        }
        names.addAll(source.storeHeaders().names());
        source.eventType().headerName().ifPresent(names::add); // GET /v1/hooks/{id} reads the event type back
        return StoredHeaderNames.only(names);
    }
}
