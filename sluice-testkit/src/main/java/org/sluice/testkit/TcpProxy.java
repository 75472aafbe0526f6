package org.sluice.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A loopback TCP proxy in front of one upstream port, for tests that need a slow, silent
 * or observable network between a client and a server.
 *
 * <ul>
 *   <li>{@link #latencyMillis(long)}: each chunk read from either side waits this long
 *       before it is forwarded (chunks of one direction stay in order).</li>
 *   <li>{@link #swallow(boolean)}: while on, connections are accepted and their bytes
 *       read, but nothing is forwarded in either direction, so a caller waits forever
 *       for a reply (a black hole, unlike a refused connection).</li>
 *   <li>{@link #bytesUp()} / {@link #bytesDown()}: bytes forwarded client to server and
 *       server to client; {@link #bytesSwallowed()}: bytes dropped.</li>
 *   <li>{@link #dropConnections()}: closes every open connection.</li>
 * </ul>
 *
 * <p>One platform thread per direction per connection: this is a fixture, not a server.
 */
public final class TcpProxy implements AutoCloseable {

    private final int upstreamPort;
    private final ServerSocket listener;
    private final Thread acceptor;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private final AtomicLong up = new AtomicLong();
    private final AtomicLong down = new AtomicLong();
    private final AtomicLong swallowed = new AtomicLong();
    private volatile long latencyMillis;
    private volatile boolean swallow;
    private volatile boolean closed;

    private TcpProxy(int upstreamPort) {
        this.upstreamPort = upstreamPort;
        try {
            this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        this.acceptor = new Thread(this::acceptLoop, "tcp-proxy-accept-" + listener.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** A proxy on a free loopback port that forwards to {@code 127.0.0.1:upstreamPort}. */
    public static TcpProxy to(int upstreamPort) {
        return new TcpProxy(upstreamPort);
    }

    public int port() {
        return listener.getLocalPort();
    }

    /** {@code redis://127.0.0.1:<proxy port>}, for pointing a Redis client through the proxy. */
    public String redisUri() {
        return "redis://127.0.0.1:" + port();
    }

    public TcpProxy latencyMillis(long millis) {
        if (millis < 0) {
            throw new IllegalArgumentException("latencyMillis must be >= 0, got " + millis);
        }
        this.latencyMillis = millis;
        return this;
    }

    public TcpProxy swallow(boolean on) {
        this.swallow = on;
        return this;
    }

    public long bytesUp() {
        return up.get();
    }

    public long bytesDown() {
        return down.get();
    }

    public long bytesSwallowed() {
        return swallowed.get();
    }

    /** Closes every open connection (clients see a reset or end of stream). */
    public void dropConnections() {
        for (Socket s : open) {
            closeQuietly(s);
        }
        open.clear();
    }

    private void acceptLoop() {
        while (!closed) {
            Socket client;
            try {
                client = listener.accept();
            } catch (IOException e) {
                return; // closed
            }
            open.add(client);
            Socket server = new Socket();
            try {
                server.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), upstreamPort), 5_000);
            } catch (IOException e) {
                if (!swallow) {
                    closeQuietly(client);
                    open.remove(client);
                    continue;
                }
                // swallowing: keep the client connected to nothing
                pump(client, null, swallowed, "sink");
                continue;
            }
            open.add(server);
            pump(client, server, up, "up");
            pump(server, client, down, "down");
        }
    }

    private void pump(Socket from, Socket to, AtomicLong counter, String name) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[16 * 1024];
            try {
                InputStream in = from.getInputStream();
                OutputStream out = to == null ? null : to.getOutputStream();
                int n;
                while ((n = in.read(buf)) >= 0) {
                    if (swallow || out == null) {
                        swallowed.addAndGet(n);
                        continue;
                    }
                    long delay = latencyMillis;
                    if (delay > 0) {
                        Thread.sleep(delay);
                    }
                    counter.addAndGet(n); // counted before the write, so a reader that got them sees them counted
                    out.write(buf, 0, n);
                    out.flush();
                }
            } catch (IOException | InterruptedException e) {
                // connection over
            } finally {
                closeQuietly(from);
                open.remove(from);
                if (to != null) {
                    closeQuietly(to);
                    open.remove(to);
                }
            }
        }, "tcp-proxy-" + name + "-" + port());
        t.setDaemon(true);
        t.start();
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // already closed
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            listener.close();
        } catch (IOException ignored) {
            // already closed
        }
        dropConnections();
    }
}
