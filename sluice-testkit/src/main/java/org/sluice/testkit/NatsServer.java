package org.sluice.testkit;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

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
public final class NatsServer extends ServerProcess implements AutoCloseable {

    /** What a test prints when it skips for want of the binary. */
    public static final String MISSING = "!!! SKIPPED: no nats-server binary (install Debian's nats-server package,"
            + " as .ci/run does, or set SLUICE_NATS_SERVER) !!!";
    private static final int START_TIMEOUT_MILLIS = 20_000;

    private NatsServer(String binary, Path dir, int port, List<String> extraArgs) {
        super(binary, dir, port, extraArgs, "nats-server", "nats", START_TIMEOUT_MILLIS, 15);
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
        Path dir = tempDir("sluice-nats");
        return startOnFreePort(port -> new NatsServer(binary, dir, port, List.of(extraArgs)));
    }

    @Override
    List<String> arguments() {
        return List.of("-js", "-a", "127.0.0.1", "-p", Integer.toString(port()), "-sd", dir.resolve("store").toString());
    }

    @Override
    boolean ready(Path log) {
        return greets() && tail(log).contains("Server is ready");
    }

    @Override
    String readyMeans() {
        return "come up";
    }

    /** True when the port answers with the protocol's {@code INFO} line. */
    private boolean greets() {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port()), 500);
            s.setSoTimeout(500);
            InputStream in = s.getInputStream();
            byte[] head = in.readNBytes(4);
            return "INFO".equals(new String(head, StandardCharsets.US_ASCII));
        } catch (IOException notYet) {
            return false;
        }
    }

    /** {@code nats://127.0.0.1:<port>}. */
    public String url() {
        return "nats://127.0.0.1:" + port();
    }

    /** Starts the server again on the same port and store (after {@link #stop()} or {@link #kill9()}). */
    public void startAgain() {
        if (isAlive()) {
            return;
        }
        relaunch();
    }

    /** A clean shutdown (SIGTERM); waits for the process to exit. The store is kept. */
    public void stop() {
        terminate();
    }

    /** SIGKILL. The store is kept. */
    public void kill9() {
        killNow();
    }

    /** Kills the server and removes its directory. */
    @Override
    public void close() {
        kill9();
        deleteDir();
    }

    @Override
    public String toString() {
        return "NatsServer[" + url() + "]";
    }
}
