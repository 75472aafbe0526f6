package org.sluice.testkit;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A real {@code nats-server -js} process on a free loopback port, its JetStream store in
 * its own temporary directory, for tests that publish to and read from real streams.
 *
 * <p>The binary is {@code $SLUICE_NATS_SERVER}, else {@code nats-server} on {@code PATH} or
 * in {@code /usr/sbin} (Debian's package puts it there; CI installs it). Where there is
 * none, {@link #binary()} is empty and a test skips itself after
 * {@link #availableOrSayWhy()} has printed {@link #MISSING} loudly.
 *
 * <p>Failure modes: {@link #stop()} (SIGTERM, store kept), {@link #kill9()}, and
 * {@link #startAgain()} on the same port and store (streams and messages still there).
 */
public final class NatsServer implements AutoCloseable {

    /** What a test prints when it skips for want of the binary. */
    public static final String MISSING = "!!! SKIPPED: no nats-server binary (install Debian's nats-server package,"
            + " as .ci/run does, or set SLUICE_NATS_SERVER) !!!";
    private static final int START_TIMEOUT_MILLIS = 20_000;

    private final String binary;
    private final Path dir;
    private final int port;
    private final List<String> extraArgs;
    private volatile Process process;

    private NatsServer(String binary, Path dir, int port, List<String> extraArgs) {
        this.binary = binary;
        this.dir = dir;
        this.port = port;
        this.extraArgs = extraArgs;
    }

    /** The {@code nats-server} binary, if this machine has one. */
    public static Optional<String> binary() {
        String override = System.getenv("SLUICE_NATS_SERVER");
        if (override != null && !override.isBlank()) {
            return Optional.of(override);
        }
        List<String> dirs = new ArrayList<>();
        String path = System.getenv("PATH");
        if (path != null) {
            dirs.addAll(List.of(path.split(File.pathSeparator, -1)));
        }
        dirs.add("/usr/sbin");
        dirs.add("/usr/local/sbin");
        for (String entry : dirs) {
            File candidate = new File(entry, "nats-server");
            if (candidate.isFile() && candidate.canExecute()) {
                return Optional.of(candidate.getAbsolutePath());
            }
        }
        return Optional.empty();
    }

    /** True when a server can be started here; prints {@link #MISSING} to stderr when not. */
    public static boolean availableOrSayWhy() {
        if (binary().isPresent()) {
            return true;
        }
        System.err.println(MISSING);
        return false;
    }

    /**
     * Starts {@code nats-server -js} on a free port and waits until it greets a client.
     *
     * @param extraArgs more arguments, e.g. {@code --max_payload 2048}
     */
    public static NatsServer start(String... extraArgs) {
        String binary = binary().orElseThrow(() -> new IllegalStateException(MISSING));
        Path dir;
        try {
            dir = Files.createTempDirectory("sluice-nats");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        IllegalStateException last = null;
        for (int attempt = 0; attempt < 3; attempt++) { // a free port may be taken before the server binds it
            NatsServer server = new NatsServer(binary, dir, freePort(), List.of(extraArgs));
            try {
                server.launch();
                return server;
            } catch (IllegalStateException e) {
                last = e;
                server.kill9();
            }
        }
        throw last;
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void launch() {
        List<String> cmd = new ArrayList<>(List.of(binary, "-js", "-a", "127.0.0.1", "-p", Integer.toString(port),
                "-sd", dir.resolve("store").toString()));
        cmd.addAll(extraArgs);
        Path log = dir.resolve("nats-" + port + ".log");
        try {
            process = new ProcessBuilder(cmd).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        } catch (IOException e) {
            throw new UncheckedIOException("could not run " + binary, e);
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(START_TIMEOUT_MILLIS);
        while (System.nanoTime() - deadline < 0) {
            if (!process.isAlive()) {
                throw new IllegalStateException("nats-server exited on port " + port + ": " + tail(log));
            }
            if (greets() && tail(log).contains("Server is ready")) {
                return;
            }
            sleepMillis(20);
        }
        throw new IllegalStateException("nats-server did not come up on port " + port + " within "
                + START_TIMEOUT_MILLIS + " ms: " + tail(log));
    }

    /** True when the port answers with the protocol's {@code INFO} line. */
    private boolean greets() {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 500);
            s.setSoTimeout(500);
            InputStream in = s.getInputStream();
            byte[] head = in.readNBytes(4);
            return "INFO".equals(new String(head, StandardCharsets.US_ASCII));
        } catch (IOException notYet) {
            return false;
        }
    }

    private static String tail(Path log) {
        try {
            String text = Files.readString(log, StandardCharsets.UTF_8);
            return text.length() > 2000 ? text.substring(text.length() - 2000) : text;
        } catch (IOException e) {
            return "(no log)";
        }
    }

    public int port() {
        return port;
    }

    /** {@code nats://127.0.0.1:<port>}. */
    public String url() {
        return "nats://127.0.0.1:" + port;
    }

    public boolean isAlive() {
        Process p = process;
        return p != null && p.isAlive();
    }

    /** Starts the server again on the same port and store (after {@link #stop()} or {@link #kill9()}). */
    public void startAgain() {
        if (isAlive()) {
            return;
        }
        IllegalStateException last = null;
        for (int attempt = 0; attempt < 50; attempt++) { // the old listener may take a moment to go
            try {
                launch();
                return;
            } catch (IllegalStateException e) {
                last = e;
                kill9();
                sleepMillis(100);
            }
        }
        throw last;
    }

    /** A clean shutdown (SIGTERM); waits for the process to exit. The store is kept. */
    public void stop() {
        Process p = process;
        if (p != null) {
            p.destroy();
            awaitExit(p);
        }
    }

    /** SIGKILL. The store is kept. */
    public void kill9() {
        Process p = process;
        if (p != null) {
            p.destroyForcibly();
            awaitExit(p);
        }
    }

    private static void awaitExit(Process p) {
        try {
            if (!p.waitFor(15, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                p.waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void sleepMillis(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Kills the server and removes its directory. */
    @Override
    public void close() {
        kill9();
        try (var files = Files.walk(dir)) {
            files.sorted(Collections.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException ignored) {
            // a temp dir left behind is harmless
        }
    }

    @Override
    public String toString() {
        return "NatsServer[" + url() + "]";
    }
}
