package org.sluice.bench.edge;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;
import org.sluice.edge.verify.Signatures;

/**
 * Load for "accepting signed hooks": C keep-alive connections, each sending one hook at a
 * time (1 KiB JSON body, valid HMAC-SHA256 signature in {@code X-Signature: sha256=<hex>})
 * and waiting for its answer. Counts 202s per second over the measured window and records
 * each request's latency (send to last byte of the answer) in an HdrHistogram.
 *
 * <p>Usage: {@code AcceptLoad host port path secret seconds connections warmupSeconds}
 */
public final class AcceptLoad {

    private AcceptLoad() {
    }

    public static void main(String[] args) throws Exception {
        String host = args[0];
        int port = Integer.parseInt(args[1]);
        String path = args[2];
        String secret = args[3];
        int seconds = Integer.parseInt(args[4]);
        int connections = Integer.parseInt(args[5]);
        int warmup = Integer.parseInt(args[6]);

        byte[] body = body(1024);
        String signature = Signatures.hmac("sha256", "hex", "sha256=", secret, body);
        byte[] head = ("POST " + path + " HTTP/1.1\r\nHost: " + host + "\r\nContent-Type: application/json\r\n"
                + "X-Signature: " + signature + "\r\nContent-Length: " + body.length + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII);
        byte[] request = Arrays.copyOf(head, head.length + body.length);
        System.arraycopy(body, 0, request, head.length, body.length);

        long start = System.nanoTime();
        long measureFrom = start + TimeUnit.SECONDS.toNanos(warmup);
        long measureTo = measureFrom + TimeUnit.SECONDS.toNanos(seconds);
        AtomicLong accepted = new AtomicLong();
        AtomicLong other = new AtomicLong();
        List<Histogram> histograms = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int c = 0; c < connections; c++) {
            Histogram h = new Histogram(TimeUnit.SECONDS.toNanos(30), 3);
            histograms.add(h);
            Thread t = new Thread(() -> run(host, port, request, measureFrom, measureTo, h, accepted, other), "load-" + c);
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) {
            t.join();
        }
        Histogram all = new Histogram(TimeUnit.SECONDS.toNanos(30), 3);
        histograms.forEach(all::add);
        System.out.printf("accept: connections=%d seconds=%d hooks_per_s=%.0f p50_ms=%.2f p99_ms=%.2f max_ms=%.1f non_202=%d%n",
                connections, seconds, accepted.get() / (double) seconds, all.getValueAtPercentile(50) / 1e6,
                all.getValueAtPercentile(99) / 1e6, all.getMaxValue() / 1e6, other.get());
    }

    private static void run(String host, int port, byte[] request, long measureFrom, long measureTo, Histogram h,
            AtomicLong accepted, AtomicLong other) {
        try (Socket socket = new Socket()) {
            socket.setTcpNoDelay(true);
            socket.connect(new InetSocketAddress(host, port));
            OutputStream out = socket.getOutputStream();
            InputStream in = new BufferedInputStream(socket.getInputStream(), 8192);
            while (true) {
                long sent = System.nanoTime();
                if (sent - measureTo >= 0) {
                    return;
                }
                out.write(request);
                out.flush();
                int status = readResponse(in);
                long done = System.nanoTime();
                if (sent - measureFrom >= 0 && done - measureTo < 0) {
                    h.recordValue(Math.min(done - sent, h.getHighestTrackableValue()));
                    if (status == 202) {
                        accepted.incrementAndGet();
                    } else {
                        other.incrementAndGet();
                    }
                }
            }
        } catch (IOException e) {
            System.err.println("connection failed: " + e);
        }
    }

    /** Reads one response; returns its status. */
    static int readResponse(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        int status = -1;
        int length = 0;
        boolean first = true;
        while (true) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("connection closed");
            }
            if (b == '\n') {
                String l = line.toString().trim();
                line.setLength(0);
                if (first) {
                    status = Integer.parseInt(l.split(" ", -1)[1]);
                    first = false;
                } else if (l.isEmpty()) {
                    break;
                } else if (l.regionMatches(true, 0, "content-length:", 0, 15)) {
                    length = Integer.parseInt(l.substring(15).trim());
                }
            } else {
                line.append((char) b);
            }
        }
        in.readNBytes(length);
        return status;
    }

    static byte[] body(int size) {
        StringBuilder s = new StringBuilder("{\"type\":\"bench\",\"data\":\"");
        while (s.length() < size - 2) {
            s.append('x');
        }
        return s.append("\"}").toString().getBytes(StandardCharsets.US_ASCII);
    }
}
