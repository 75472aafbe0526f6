package org.sluice.bench.edge;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.sluice.edge.config.ConfigLoader;
import org.sluice.edge.server.EdgeServer;
import org.sluice.edge.verify.Signatures;

/**
 * The allocation budgets of issue 16, checked against a real server: bytes the server's
 * threads allocate per request, read from {@code com.sun.management.ThreadMXBean} before and
 * after a fixed number of requests (the load's own threads are left out of the sum, so the
 * figure does not depend on timing or on the machine's load).
 *
 * <ul>
 *   <li>refusal: a server with {@code rate_limits.per_ip {rate: 1, burst: 5}} and the default
 *       {@code http.refused_body}; N bodiless POSTs, then N POSTs with a 1 KiB body sent with
 *       its headers, on one keep-alive connection (nearly every answer a 429). Budget:
 *       {@value #REFUSAL_BUDGET} bytes per request.</li>
 *   <li>accept: a server without limits, one HMAC source, fsync group commit; N signed 1 KiB
 *       hooks on 8 connections (every answer a 202). Budget: {@value #ACCEPT_BUDGET} bytes per
 *       request plus the body.</li>
 * </ul>
 * Each phase first sends a warm-up of the same requests so that the JIT has compiled the path
 * (escape analysis removes some allocations only once it has).
 *
 * <p>Usage: {@code AllocBudget [refusals] [accepts]}. Exits 1 with a message naming the broken
 * budget; 0 when both hold.
 */
public final class AllocBudget {

    static final long REFUSAL_BUDGET = 256;
    static final long ACCEPT_BUDGET = 4096;
    private static final String CLIENT_THREAD = "alloc-load-";
    /** The ingest event loops' thread names (EdgeServer): reported apart, as where a refusal runs. */
    private static final String IO_THREAD = "sluice-io-";

    private AllocBudget() {
    }

    public static void main(String[] args) throws Exception {
        int refusals = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
        int accepts = args.length > 1 ? Integer.parseInt(args[1]) : 20_000;
        Path dir = Files.createTempDirectory("sluice-alloc");
        List<String> broken = new ArrayList<>();

        try (EdgeServer server = start(dir, "refuse", """
                node: {id: alloc-refuse, data_dir: "%s"}
                admin: {listen: "127.0.0.1:0"}
                http: {listen: "127.0.0.1:0"%s}
                rate_limits:
                  per_ip: {rate: 1, burst: 5}
                sources:
                  gh: {verify: {scheme: none}}
                """)) {
            int port = server.ingestAddress().getPort();
            byte[] bodiless = request("/hooks/gh", port, "", new byte[0]);
            byte[] withBody = request("/hooks/gh", port, "", AcceptLoad.body(1024));
            broken.addAll(phase("refusal, bodiless", port, bodiless, refusals, 1, 429, REFUSAL_BUDGET, 0));
            broken.addAll(phase("refusal, 1 KiB body", port, withBody, refusals, 1, 429, REFUSAL_BUDGET, 0));
        }
        try (EdgeServer server = start(dir, "accept", """
                node: {id: alloc-accept, data_dir: "%s"}
                admin: {listen: "127.0.0.1:0"}
                http: {listen: "127.0.0.1:0"%s}
                intake: {partitions: 2, max_batch: 256, max_delay_ms: 0, max_queue: 10000}
                sources:
                  bench: {tenant: bench, verify: {scheme: hmac, header: X-Signature, prefix: "sha256=", algorithm: sha256, encoding: hex, secrets: ["bench-secret"]}}
                """)) {
            int port = server.ingestAddress().getPort();
            byte[] body = AcceptLoad.body(1024);
            String signature = Signatures.hmac("sha256", "hex", "sha256=", "bench-secret", body);
            byte[] signed = request("/hooks/bench", port, "X-Signature: " + signature + "\r\n", body);
            broken.addAll(phase("accept, signed 1 KiB", port, signed, accepts, 8, 202, ACCEPT_BUDGET, body.length));
        }
        if (!broken.isEmpty()) {
            System.err.println("ALLOCATION BUDGET BROKEN:");
            broken.forEach(b -> System.err.println("  " + b));
            System.exit(1);
        }
        System.out.println("allocation budgets hold");
    }

    private static EdgeServer start(Path dir, String name, String yaml) throws IOException {
        Path config = dir.resolve(name + ".yaml");
        // SLUICE_TRANSPORT (alloc-budget.sh's TRANSPORT) sets http.transport: the budgets hold on each.
        String transport = System.getenv().getOrDefault("SLUICE_TRANSPORT", "");
        String transportKey = transport.isEmpty() ? "" : ", transport: " + transport;
        Files.writeString(config, yaml.formatted(dir.resolve(name + "-data"), transportKey));
        return EdgeServer.builder(ConfigLoader.load(config)).start();
    }

    private static byte[] request(String path, int port, String extraHeaders, byte[] body) {
        byte[] head = ("POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nContent-Type: application/json\r\n"
                + extraHeaders + "Content-Length: " + body.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
        byte[] request = Arrays.copyOf(head, head.length + body.length);
        System.arraycopy(body, 0, request, head.length, body.length);
        return request;
    }

    /** Warm-up, then the measured run; returns the budget broken, if it was. */
    private static List<String> phase(String label, int port, byte[] request, int n, int connections, int status,
            long budget, long bodyBytes) throws Exception {
        drive(port, request, Math.max(n / 2, 20_000), connections, status); // JIT warm-up
        Map<Long, Long> before = serverAllocations();
        long[] statuses = drive(port, request, n, connections, status);
        Map<Long, Long> after = serverAllocations();
        Map<Long, String> names = new HashMap<>();
        Thread.getAllStackTraces().keySet().forEach(t -> names.put(t.getId(), t.getName()));
        long bytes = 0;
        long ioBytes = 0;
        for (Map.Entry<Long, Long> e : after.entrySet()) {
            long delta = e.getValue() - before.getOrDefault(e.getKey(), 0L);
            bytes += delta;
            if (names.getOrDefault(e.getKey(), "").startsWith(IO_THREAD)) {
                ioBytes += delta;
            }
        }
        double perRequest = bytes / (double) n;
        System.out.printf("%s: requests=%d expected_status=%d got_it=%d other=%d server_bytes=%d bytes_per_request=%.1f"
                + " (event loops %.1f) budget=%d%s%n", label, n, status, statuses[0], statuses[1], bytes, perRequest,
                ioBytes / (double) n, budget, bodyBytes > 0 ? "+" + bodyBytes + " (body)" : "");
        List<String> broken = new ArrayList<>();
        if (perRequest > budget + bodyBytes) {
            broken.add(String.format("%s: %.1f bytes per request > budget %d%s", label, perRequest, budget,
                    bodyBytes > 0 ? " + " + bodyBytes + " body bytes" : ""));
        }
        if (statuses[1] > Math.max(50, n / 100)) {
            broken.add(label + ": " + statuses[1] + " of " + n + " answers were not " + status
                    + " (the run did not measure what it says)");
        }
        return broken;
    }

    /** Bytes allocated so far by each live thread that is not the load's (nor this main thread). */
    private static Map<Long, Long> serverAllocations() {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        Map<Long, Long> out = new HashMap<>();
        Thread self = Thread.currentThread();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t == self || t.getName().startsWith(CLIENT_THREAD)) {
                continue;
            }
            long allocated = mx.getThreadAllocatedBytes(t.getId());
            if (allocated >= 0) {
                out.put(t.getId(), allocated);
            }
        }
        return out;
    }

    /** Sends {@code n} requests over {@code connections} keep-alive connections, one at a time on each. */
    private static long[] drive(int port, byte[] request, int n, int connections, int status) throws Exception {
        AtomicLong expected = new AtomicLong();
        AtomicLong other = new AtomicLong();
        AtomicLong left = new AtomicLong(n);
        List<Thread> threads = new ArrayList<>();
        List<Throwable> failures = new ArrayList<>();
        for (int c = 0; c < connections; c++) {
            Thread t = new Thread(() -> {
                try (Socket socket = new Socket()) {
                    socket.setTcpNoDelay(true);
                    socket.connect(new InetSocketAddress("127.0.0.1", port));
                    OutputStream out = socket.getOutputStream();
                    InputStream in = new BufferedInputStream(socket.getInputStream(), 8192);
                    while (left.getAndDecrement() > 0) {
                        out.write(request); // one write: headers and body arrive together
                        out.flush();
                        (AcceptLoad.readResponse(in) == status ? expected : other).incrementAndGet();
                    }
                } catch (IOException e) {
                    synchronized (failures) {
                        failures.add(e);
                    }
                }
            }, CLIENT_THREAD + c);
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) {
            t.join();
        }
        if (!failures.isEmpty()) {
            throw new IllegalStateException("the load failed: " + failures);
        }
        return new long[] {expected.get(), other.get()};
    }
}
