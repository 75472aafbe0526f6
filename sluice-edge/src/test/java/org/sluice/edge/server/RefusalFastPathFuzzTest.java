package org.sluice.edge.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.BugDetectors;
import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.api.SilentCloseable;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/**
 * Fuzz target for the refusal fast path ({@code http.RefusalFastPath}), checked against the
 * pipeline it stands in front of. Two real servers run the same config, one with the fast path
 * and one without it ({@link PipelineSeam}); each input is written to both over real sockets
 * from the same client address, and the two answer streams must be the same bytes (the ids of
 * accepted hooks aside): same statuses, headers, bodies, order, and the connection closed at the
 * same point. A request the fast path answers that the plain pipeline would not have refused
 * with the connection kept (a head it could not frame for certain, a 400 of the codec, a 404,
 * a request whose body decides otherwise...) shows as a difference.
 *
 * <p>The fuzzer also chooses how the bytes are cut into reads: a handler placed first in both
 * servers' pipelines hands each connection's bytes on in exactly those pieces, one read each,
 * whatever the TCP segments were. The client writes the input at once and never half-closes;
 * the servers' short {@code read_timeout_ms} ends every connection (answered 408 mid-request,
 * closed silently between requests), so the end of a stream is the server's decision, not a
 * race with the client. Each input comes from a client address of its own, both limiters'
 * clocks move a minute per input and then stand still: each input starts on a full bucket of
 * two, and {@code Retry-After} agrees to the millisecond.
 *
 * <p>Also a finding: anything logged at WARN or above (a leaked buffer, at PARANOID leak
 * detection; an exception at the end of a pipeline), and a connection not closed within 20 s.
 */
@Tag("fuzz")
class RefusalFastPathFuzzTest {

    private static final String CONFIG = """
            http: {listen: "127.0.0.1:0", max_body_bytes: 4096, max_header_bytes: 1024, read_timeout_ms: 250}
            rate_limits:
              per_ip: {rate: 1, burst: 2}
              tenants:
                small: {rate: 1000000, burst: 1000000, max_body_bytes: 64}
            sources:
              a: {verify: {scheme: none}}
              b: {tenant: small, verify: {scheme: none}}
            """;
    private static final int CLOSE_WAIT_MILLIS = 20_000;
    private static final Pattern HOOK_ID = Pattern.compile("\"id\":\"[0-9a-f-]{36}\"");

    private static final List<String> METHODS = List.of("POST", "POST", "POST", "GET", "post", "PUT", "HEAD");
    private static final List<String> TARGETS = List.of("/hooks/a", "/hooks/a", "/hooks/b", "/hooks/a?x=1",
            "/hooks/a?\u00e9=1", "/hooks/\u00e9", "/hooks/a\u0080", "/hooks/c", "/hooks/a/", "//hooks/a", "/hooks/a#f",
            "http://h/hooks/a", "*", "/hooks/a?", "/hooks/a%20");
    private static final List<String> VERSIONS = List.of("HTTP/1.1", "HTTP/1.1", "HTTP/1.0", "HTTP/1.2", "http/1.1",
            "HTTP/2.0", "HTTP/1.1 ", "HTTP/11");
    private static final List<String> NAMES = List.of("Host", "Content-Length", "content-length", "Connection",
            "Transfer-Encoding", "Expect", "Upgrade", "X-Forwarded-For", "Content-Type", "X-\u00e9", "Content-Length ",
            " Content-Length", "X-A", "Keep-Alive");
    private static final List<String> VALUES = List.of("0", "2", "10", "64", "65", "1024", "-1", "+2", "0x2",
            "00000000000000000002", "2, 2", "close", "keep-alive", "Keep-Alive", "close, keep-alive", "upgrade",
            "chunked", "100-continue", "t", "\u00e9", "a\u0000b", "a\u007fb", "", " 2 ", "\t2");

    static final WarningWatch WATCH = new WarningWatch();
    static final Queue<String> PROBLEMS = WATCH.problems;

    /**
     * The client address of the next input, 127.0.0.2 to 127.0.0.254 in turn: each input's
     * bucket is one no earlier connection can still charge. (With one shared address, two
     * runs saw an input start on a bucket short of one hook on one server and not the other:
     * a charge from an earlier input's connection arriving late, not yet explained.)
     */
    private static int nextClient;

    /** The reads each connection is cut into, by the client's port, until the server takes them. */
    private static final Map<Integer, int[]> READS = new ConcurrentHashMap<>();

    static Path fastDir;
    static Path plainDir;
    static TestEdge fast;
    static TestEdge plain;

    @BeforeAll
    static void start() throws IOException {
        WATCH.start();
        fastDir = Files.createTempDirectory("sluice-fast-path-fuzz");
        plainDir = Files.createTempDirectory("sluice-plain-path-fuzz");
        fast = TestEdge.startWith(fastDir, CONFIG,
                b -> b.pipelineSeam(new PipelineSeam(true, RefusalFastPathFuzzTest::inReads)));
        plain = TestEdge.startWith(plainDir, CONFIG,
                b -> b.pipelineSeam(new PipelineSeam(false, RefusalFastPathFuzzTest::inReads)));
    }

    @AfterAll
    static void stop() throws IOException {
        try {
            closeAll(fast, plain);
        } finally {
            WATCH.stop();
            for (Path dir : new Path[] {fastDir, plainDir}) {
                try (var files = Files.walk(dir)) {
                    files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
                }
            }
        }
        assertThat(PROBLEMS).as("warnings logged by the servers").isEmpty();
    }

    private static void closeAll(TestEdge... edges) {
        for (TestEdge edge : edges) {
            if (edge != null) {
                edge.close();
            }
        }
    }

    @FuzzTest(maxDuration = "30s")
    void theFastPathAnswersAsThePipelineDoes(FuzzedDataProvider data) throws IOException {
        int[] cuts = new int[data.consumeInt(0, 6)];
        for (int i = 0; i < cuts.length; i++) {
            cuts[i] = data.consumeInt(1, 600);
        }
        byte[] input = data.consumeBoolean() ? data.consumeRemainingAsBytes() : assemble(data);
        if (input.length == 0) {
            return;
        }
        Answers withFastPath;
        Answers without;
        fast.clock.advance(Duration.ofMinutes(1));
        plain.clock.advance(Duration.ofMinutes(1));
        try (SilentCloseable toTheServers = BugDetectors.allowNetworkConnections(
                (host, port) -> port == fast.address.getPort() || port == plain.address.getPort())) {
            int[] reads = reads(cuts, input.length);
            InetAddress client = InetAddress.getByAddress(new byte[] {127, 0, 0, (byte) (2 + nextClient++ % 253)});
            try (Socket toFast = send(fast, client, input, reads); Socket toPlain = send(plain, client, input, reads)) {
                withFastPath = readToEnd(toFast);
                without = readToEnd(toPlain);
            }
        }
        String shown = "input " + printable(input) + " in reads " + Arrays.toString(reads(cuts, input.length));
        if (withFastPath.cleanEnd() && without.cleanEnd()) {
            assertThat(withFastPath.text()).as("answers with the fast path to %s", shown).isEqualTo(without.text());
        } else {
            // a reset may cut either stream short: what both received must still agree
            int common = Math.min(withFastPath.text().length(), without.text().length());
            assertThat(withFastPath.text().substring(0, common)).as("answers with the fast path (a stream was reset) to %s",
                    shown).isEqualTo(without.text().substring(0, common));
        }
        assertThat(PROBLEMS).as("warnings logged by the servers").isEmpty();
    }

    // ================================================================ the input

    /** Requests from parts the fast path reads, some valid, some nearly so, pipelined on one connection. */
    private static byte[] assemble(FuzzedDataProvider data) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int requests = data.consumeInt(1, 5);
        for (int r = 0; r < requests; r++) {
            StringBuilder head = new StringBuilder();
            head.append(data.pickValue(METHODS)).append(' ')
                    .append(data.consumeInt(0, 5) != 0 ? data.pickValue(TARGETS) : "/hooks/a?" + data.consumeString(12))
                    .append(' ').append(data.pickValue(VERSIONS)).append("\r\n");
            int bodyLength = data.pickValue(new int[] {0, 0, 2, 10, 64, 65, 300});
            if (data.consumeInt(0, 4) != 0) {
                head.append("Content-Length: ").append(bodyLength).append("\r\n");
            }
            int headers = data.consumeInt(0, 4);
            for (int i = 0; i < headers; i++) {
                String name = data.consumeInt(0, 4) != 0 ? data.pickValue(NAMES) : data.consumeString(12);
                String value = data.consumeInt(0, 4) != 0 ? data.pickValue(VALUES) : data.consumeString(24);
                head.append(name).append(data.consumeInt(0, 6) != 0 ? ": " : ":").append(value)
                        .append(data.consumeInt(0, 10) != 0 ? "\r\n" : "\n");
            }
            head.append("\r\n");
            out.writeBytes(head.toString().getBytes(StandardCharsets.ISO_8859_1));
            int sent = data.consumeInt(0, 6) == 0 ? Math.max(0, bodyLength + data.consumeInt(-2, 2)) : bodyLength;
            out.writeBytes("x".repeat(sent).getBytes(StandardCharsets.US_ASCII));
        }
        return out.toByteArray();
    }

    /** The fuzzer's cuts as read sizes that add up to {@code total}: the last read takes what is left. */
    private static int[] reads(int[] cuts, int total) {
        int[] reads = new int[cuts.length + 1];
        int at = 0;
        int n = 0;
        for (int cut : cuts) {
            int size = Math.min(cut, total - at);
            if (size > 0) {
                reads[n++] = size;
                at += size;
            }
        }
        if (at < total) {
            reads[n++] = total - at;
        }
        return Arrays.copyOf(reads, n);
    }

    private static String printable(byte[] input) {
        StringBuilder out = new StringBuilder("\"");
        for (byte b : input) {
            int c = b & 0xff;
            switch (c) {
                case '\r' -> out.append("\\r");
                case '\n' -> out.append("\\n");
                case '"', '\\' -> out.append('\\').append((char) c);
                default -> {
                    if (c < 0x20 || c >= 0x7f) {
                        out.append(String.format("\\x%02x", c));
                    } else {
                        out.append((char) c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }

    // ================================================================ the connections

    /** Connects from a port the servers then find in {@link #READS}, and writes the whole input. */
    private static Socket send(TestEdge edge, InetAddress client, byte[] input, int[] reads) throws IOException {
        Socket socket = new Socket();
        try {
            socket.bind(new InetSocketAddress(client, 0));
            READS.put(socket.getLocalPort(), reads);
            socket.connect(edge.address, 5_000);
            socket.setSoTimeout(CLOSE_WAIT_MILLIS);
            socket.getOutputStream().write(input);
            socket.getOutputStream().flush();
        } catch (IOException closedEarly) {
            // a server that answered and closed before the last byte: its answers are still read
        }
        return socket;
    }

    /** The answers, hook ids blanked, and whether the stream ended with a FIN (not a reset). */
    record Answers(String text, boolean cleanEnd) {
    }

    private static Answers readToEnd(Socket socket) {
        ByteArrayOutputStream received = new ByteArrayOutputStream();
        boolean clean;
        try {
            InputStream in = socket.getInputStream();
            byte[] buf = new byte[8192];
            for (int n; (n = in.read(buf)) >= 0; ) {
                received.write(buf, 0, n);
            }
            clean = true;
        } catch (SocketTimeoutException hang) {
            throw new AssertionError("the server did not close the connection within " + CLOSE_WAIT_MILLIS
                    + " ms; received so far: " + received.toString(StandardCharsets.ISO_8859_1));
        } catch (IOException reset) {
            clean = false;
        }
        String text = received.toString(StandardCharsets.ISO_8859_1);
        return new Answers(HOOK_ID.matcher(text).replaceAll("\"id\":\"*\""), clean);
    }

    /** The handler each server's connection starts with: its bytes in the reads the client asked for. */
    private static ChannelHandler inReads(Channel channel) {
        int port = ((InetSocketAddress) channel.remoteAddress()).getPort();
        int[] reads = READS.remove(port);
        return new InReads(reads == null ? new int[0] : reads);
    }

    /**
     * Hands the connection's bytes on in reads of the given sizes, each a {@code channelRead}
     * and a {@code channelReadComplete} as a socket read is; bytes past the last size go on as
     * they come. Holds at most one read's worth.
     */
    static final class InReads extends ChannelInboundHandlerAdapter {
        private final int[] sizes;
        private int next;
        private ByteBuf held;

        InReads(int[] sizes) {
            this.sizes = sizes;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (!(msg instanceof ByteBuf bytes)) {
                ctx.fireChannelRead(msg);
                return;
            }
            if (held == null) {
                held = bytes;
            } else {
                ByteBuf both = ctx.alloc().buffer(held.readableBytes() + bytes.readableBytes()).writeBytes(held)
                        .writeBytes(bytes);
                held.release();
                bytes.release();
                held = both;
            }
            boolean fired = false;
            while (held.isReadable() && (next >= sizes.length || held.readableBytes() >= sizes[next])) {
                int size = next < sizes.length ? sizes[next++] : held.readableBytes();
                if (fired) {
                    ctx.fireChannelReadComplete(); // the read before this one ends here
                }
                ctx.fireChannelRead(held.readRetainedSlice(size));
                fired = true;
                if (!ctx.channel().isOpen()) {
                    break;
                }
            }
            if (!held.isReadable() || !ctx.channel().isOpen()) {
                held.release();
                held = null;
            }
        }

        @Override
        public void handlerRemoved(ChannelHandlerContext ctx) {
            if (held != null) {
                held.release();
                held = null;
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            handlerRemoved(ctx);
            ctx.fireChannelInactive();
        }
    }
}
