package org.sluice.bench.edge;

import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.JetStreamManagement;
import io.nats.client.JetStreamSubscription;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.PublishOptions;
import io.nats.client.PullSubscribeOptions;
import io.nats.client.api.AckPolicy;
import io.nats.client.api.ConsumerConfiguration;
import io.nats.client.api.PublishAck;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.nats.client.impl.Headers;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;

/**
 * The JetStream side of {@code scripts/broker-bench-nats.sh}, as one command with a verb:
 * <ul>
 *   <li>{@code stream URL NAME SUBJECT}: creates a file stream;</li>
 *   <li>{@code count URL NAME}: prints its message count;</li>
 *   <li>{@code lag URL NAME FROM_MS TO_MS}: reads every message and prints p50/p99/max of
 *       its stream time minus the receipt time in its {@code webhook-id} (a UUIDv7), for
 *       hooks received between FROM_MS and TO_MS;</li>
 *   <li>{@code ceiling URL SECONDS BODY_BYTES WINDOW [records]}: a plain publisher loop, async
 *       publish with acks and at most WINDOW unacked, on its own stream: acked/s; with
 *       {@code records}, each message as Sluice sends it (its headers, a distinct
 *       {@code Nats-Msg-Id}, 16 subjects), to show what the broker allows for those.</li>
 * </ul>
 */
public final class NatsBench {

    private NatsBench() {
    }

    public static void main(String[] args) throws Exception {
        try (Connection c = Nats.connect(args[1])) {
            JetStreamManagement jsm = c.jetStreamManagement();
            switch (args[0]) {
                case "stream" -> jsm.addStream(StreamConfiguration.builder().name(args[2]).subjects(args[3])
                        .storageType(StorageType.File).build());
                case "count" -> System.out.println(jsm.getStreamInfo(args[2]).getStreamState().getMsgCount());
                case "lag" -> lag(c, args[2], Long.parseLong(args[3]), Long.parseLong(args[4]));
                case "ceiling" -> ceiling(c, jsm, Integer.parseInt(args[2]), Integer.parseInt(args[3]),
                        Integer.parseInt(args[4]), args.length > 5 && args[5].equals("records"));
                default -> throw new IllegalArgumentException("verbs: stream, count, lag, ceiling; got " + args[0]);
            }
        }
    }

    private static void lag(Connection c, String stream, long fromMs, long toMs) throws Exception {
        JetStream js = c.jetStream();
        long total = c.jetStreamManagement().getStreamInfo(stream).getStreamState().getMsgCount();
        JetStreamSubscription sub = js.subscribe(null, PullSubscribeOptions.builder().stream(stream)
                .configuration(ConsumerConfiguration.builder().ackPolicy(AckPolicy.None).build()).build());
        Histogram lag = new Histogram(3);
        long read = 0;
        while (read < total) {
            List<Message> batch = sub.fetch(1000, Duration.ofSeconds(2));
            if (batch.isEmpty()) {
                break;
            }
            for (Message m : batch) {
                read++;
                String id = m.getHeaders().getFirst("webhook-id");
                long received = Long.parseLong(id.replace("-", "").substring(0, 12), 16);
                if (received >= fromMs && received <= toMs) {
                    long stored = m.metaData().timestamp().toInstant().toEpochMilli();
                    lag.recordValue(Math.max(0, stored - received));
                }
            }
        }
        System.out.printf("messages=%d in_window=%d lag_ms p50=%d p99=%d max=%d%n", read, lag.getTotalCount(),
                lag.getValueAtPercentile(50), lag.getValueAtPercentile(99), lag.getMaxValue());
    }

    private static void ceiling(Connection c, JetStreamManagement jsm, int seconds, int bodyBytes, int window,
            boolean records) throws Exception {
        String stream = records ? "CEILINGRECORDS" : "CEILING";
        String prefix = records ? "ceilingrecords." : "ceiling.";
        jsm.addStream(StreamConfiguration.builder().name(stream).subjects(prefix + ">").storageType(StorageType.File).build());
        JetStream js = c.jetStream();
        byte[] body = new byte[bodyBytes];
        Arrays.fill(body, (byte) 'x');
        Semaphore slots = new Semaphore(window);
        AtomicLong acked = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        long cpu0 = processCpuNanos();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        long start = System.nanoTime();
        String receivedAt = java.time.Instant.now().toString();
        long n = 0;
        while (System.nanoTime() - end < 0) {
            slots.acquire();
            CompletableFuture<PublishAck> ack;
            if (records) { // what Sluice sends: its headers, a distinct id for the duplicate window, 16 subjects
                String id = new UUID(System.nanoTime(), n++).toString();
                Headers h = new Headers().add("webhook-id", id).add("sluice-tenant", "tenant-" + (n % 16))
                        .add("sluice-source", "bench").add("sluice-received-at", receivedAt).add("sluice-attempt", "1")
                        .add("content-type", "application/json");
                ack = js.publishAsync(prefix + "tenant-" + (n % 16) + ".bench", h, body,
                        PublishOptions.builder().messageId(id).build());
            } else {
                ack = js.publishAsync(prefix + "x", body);
            }
            ack.whenComplete((a, e) -> {
                (e == null ? acked : failed).incrementAndGet();
                slots.release();
            });
        }
        slots.acquire(window);
        double secs = (System.nanoTime() - start) / 1e9;
        double cpuUs = (processCpuNanos() - cpu0) / 1e3 / Math.max(1, acked.get());
        System.out.printf("plain publisher%s: %.0f acked/s (%d acked, %d failed, %d-byte body, window %d;"
                        + " the publisher's JVM %.1f us of CPU per message)%n",
                records ? " of Sluice's records (its headers, Nats-Msg-Id, 16 subjects)" : "",
                acked.get() / secs, acked.get(), failed.get(), bodyBytes, window, cpuUs);
    }

    /** CPU time of this JVM so far, every thread (the loop's, the client's, GC and JIT). */
    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }
}
