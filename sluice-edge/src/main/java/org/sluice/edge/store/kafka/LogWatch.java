package org.sluice.edge.store.kafka;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.ExecutionException;
import com.google.errorprone.annotations.concurrent.GuardedBy;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the log can take hooks now, kept by one background thread ({@code sluice-log-watch}).
 *
 * <p>Every {@value #PERIOD_MS} ms the watch makes the hooks topic if it is still missing
 * ({@link LogTopics#ensure}, until that succeeded once), then probes it: every partition has
 * a leader and at least {@code min.insync.replicas} in-sync replicas. Each call waits at most
 * {@code timeout_ms}. The answer is one volatile field, {@link #problem()}: null while the log
 * is available, else why not ({@code /readyz} answers {@code 503 log_unavailable}, and a commit
 * is answered {@code store_unavailable} at once rather than after {@code timeout_ms}).
 *
 * <p>A commit that failed marks the log unavailable too ({@link #failed}); the next probe that
 * succeeds makes it available again, so ingest and readiness recover by themselves once the
 * brokers are back, at most one period plus one probe after. Transitions are logged once.
 */
final class LogWatch implements AutoCloseable {

    static final long PERIOD_MS = 1000;
    private static final Logger LOG = LoggerFactory.getLogger(LogWatch.class);

    private final KafkaLogSettings settings;
    private final LogClients clients;
    private final LogTopics topics;
    private final ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "sluice-log-watch");
        t.setDaemon(true);
        return t;
    });
    /** Null while available; only the watch thread and failed commits write it. */
    private volatile String problem = "not checked yet";
    /** The hooks topic's min.insync.replicas once ensured, else -1. */
    @GuardedBy("this")
    private int minIsr = -1;

    LogWatch(KafkaLogSettings settings, LogClients clients) {
        this.settings = settings;
        this.clients = clients;
        this.topics = new LogTopics(settings);
    }

    /**
     * Checks once now (the caller waits, bounded by a few {@code timeout_ms}), then, when
     * {@code background}, every period on the watch thread.
     */
    void start(boolean background) {
        check(true);
        if (background) {
            thread.scheduleWithFixedDelay(() -> check(false), PERIOD_MS, PERIOD_MS, TimeUnit.MILLISECONDS);
        }
    }

    /** Null while the log is available, else why not. */
    String problem() {
        return problem;
    }

    /** A commit could not get its records acknowledged: unavailable until the next probe succeeds. */
    void failed(String why) {
        if (problem == null) {
            LOG.error("the log ({}) did not acknowledge a write: {}; ingest answers 503 store_unavailable and /readyz"
                    + " 503 log_unavailable until it does", settings.location(), why);
        }
        problem = why;
    }

    /**
     * One check: ensure the topic (until done once), then probe it. On the watch thread (or at
     * start). A topic name Kafka refuses fails the boot ({@code atBoot}); found later (the
     * brokers were down at boot) it is the log's problem, logged, until the node is restarted.
     */
    synchronized void check(boolean atBoot) {
        String now;
        try {
            if (minIsr < 0) {
                minIsr = topics.ensure(clients.admin());
            }
            now = topics.probe(clients.admin(), minIsr);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            now = describe(cause);
            if (cause instanceof InvalidTopicException && minIsr < 0) { // a name Kafka refuses: no retry can help
                String refused = "store.kafka.topic_prefix names a topic Kafka refuses (" + cause.getMessage()
                        + "), got \"" + settings.topicPrefix() + "\"";
                if (atBoot) {
                    throw new IllegalArgumentException(refused, cause);
                }
                now = refused;
            }
        } catch (Exception e) { // a timeout, a client that cannot be made: try again next period
            now = describe(e);
        }
        String before = problem;
        problem = now;
        if (now == null && before != null) {
            LOG.info("the log ({}) is available", settings.location());
        } else if (now != null && before == null) {
            LOG.error("the log ({}) is unavailable: {}; ingest answers 503 store_unavailable and /readyz 503"
                    + " log_unavailable; checking again every {} ms", settings.location(), now, PERIOD_MS);
        } else if (now != null && "not checked yet".equals(before)) {
            LOG.warn("the log ({}) is unavailable at boot: {}; the node starts, /readyz answers 503 log_unavailable"
                    + " until it is; checking every {} ms", settings.location(), now, PERIOD_MS);
        }
    }

    /** An error as one line for the log and {@code problem}: its class's simple name and message. */
    static String describe(Throwable e) {
        return e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
    }

    @Override
    public void close() {
        thread.shutdownNow();
        try {
            thread.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
