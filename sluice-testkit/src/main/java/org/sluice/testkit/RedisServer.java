package org.sluice.testkit;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import redis.embedded.core.ExecutableProvider;

/**
 * A real {@code redis-server} process on a free loopback port, for tests that need a
 * store that can die, stall and come back.
 *
 * <p>The binary is {@code redis-server} from {@code PATH} when there is one, else the
 * one bundled in {@code com.github.codemonstur:embedded-redis} (a class-path resource
 * that its {@code ExecutableProvider.newJarResourceProvider()} extracts to a temporary
 * executable file). The server runs with no persistence ({@code --save "" --appendonly
 * no}) in its own temporary directory, so every start is empty.
 *
 * <p>Failure modes a test can inject: {@link #stop()} (clean shutdown), {@link #kill9()}
 * (SIGKILL), {@link #pause()} / {@link #resume()} (SIGSTOP / SIGCONT: a store that
 * accepts connections but never answers) and {@link #restartEmpty()} (a fresh empty
 * server on the same port: scripts and keys gone).
 *
 * <p>{@link #commandStats()} reads the server's own {@code INFO commandstats}, so a
 * test can prove that no command reached it.
 */
public final class RedisServer implements AutoCloseable {

    private static final int START_TIMEOUT_MILLIS = 15_000;
    private static final int CALL_TIMEOUT_MILLIS = 5_000;

    private final String binary;
    private final Path dir;
    private final int port;
    private final List<String> extraArgs;
    private volatile Process process;
    private volatile boolean paused;

    private RedisServer(String binary, Path dir, int port, List<String> extraArgs) {
        this.binary = binary;
        this.dir = dir;
        this.port = port;
        this.extraArgs = extraArgs;
    }

    /** Starts a server on a free port and waits until it answers {@code PING}. */
    public static RedisServer start(String... extraArgs) {
        return startWith(binary(), extraArgs);
    }

    /** Like {@link #start} with a given {@code redis-server} binary. */
    public static RedisServer startWith(String binary, String... extraArgs) {
        Path dir;
        try {
            dir = Files.createTempDirectory("sluice-redis");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        IllegalStateException last = null;
        for (int attempt = 0; attempt < 3; attempt++) { // a free port may be taken before redis binds it
            RedisServer server = new RedisServer(binary, dir, freePort(), List.of(extraArgs));
            try {
                server.launch();
                return server;
            } catch (IllegalStateException e) {
                last = e;
                server.destroyQuietly();
            }
        }
        throw last;
    }

    /** The path of the {@code redis-server} binary these servers run. */
    public static String binary() {
        String override = System.getenv("SLUICE_REDIS_SERVER");
        if (override != null && !override.isBlank()) {
            return override;
        }
        String path = System.getenv("PATH");
        if (path != null) {
            for (String entry : path.split(File.pathSeparator, -1)) {
                File candidate = new File(entry, "redis-server");
                if (candidate.isFile() && candidate.canExecute()) {
                    return candidate.getAbsolutePath();
                }
            }
        }
        return bundledBinary();
    }

    /** The {@code redis-server} bundled in embedded-redis, extracted to a temporary file. */
    public static String bundledBinary() {
        try {
            File bundled = ExecutableProvider.newJarResourceProvider().get();
            if (!bundled.canExecute() && !bundled.setExecutable(true)) {
                throw new IllegalStateException("bundled redis-server " + bundled + " is not executable");
            }
            return bundled.getAbsolutePath();
        } catch (IOException e) {
            throw new UncheckedIOException("no redis-server on PATH and the bundled one could not be extracted", e);
        }
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
        List<String> cmd = new ArrayList<>(List.of(binary,
                "--port", Integer.toString(port),
                "--bind", "127.0.0.1",
                "--save", "",
                "--appendonly", "no",
                "--protected-mode", "no",
                "--daemonize", "no",
                "--dir", dir.toString()));
        cmd.addAll(extraArgs);
        Path log = dir.resolve("redis-" + port + ".log");
        try {
            process = new ProcessBuilder(cmd)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException("could not run " + binary, e);
        }
        paused = false;
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(START_TIMEOUT_MILLIS);
        while (System.nanoTime() - deadline < 0) {
            if (!process.isAlive()) {
                throw new IllegalStateException("redis-server exited on port " + port + ": " + tail(log));
            }
            try {
                if ("PONG".equals(Resp.call(port, 500, "PING"))) {
                    return;
                }
            } catch (RuntimeException notYet) {
                // not listening yet
            }
            sleepMillis(10);
        }
        throw new IllegalStateException("redis-server did not answer PING on port " + port + " within "
                + START_TIMEOUT_MILLIS + " ms: " + tail(log));
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

    /** {@code redis://127.0.0.1:<port>}. */
    public String uri() {
        return "redis://127.0.0.1:" + port;
    }

    /** The server's process id. */
    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        Process p = process;
        return p != null && p.isAlive();
    }

    /** Sends one command with a raw socket and returns its reply (see {@link Resp}). */
    public Object call(String... args) {
        return Resp.call(port, CALL_TIMEOUT_MILLIS, args);
    }

    /**
     * Calls per command since start or the last {@link #resetStats()}, from {@code INFO
     * commandstats}: e.g. {@code evalsha -> 12}. The reading itself (an {@code info}
     * call) is counted by the server from the next reading on.
     */
    public Map<String, Long> commandStats() {
        String info = (String) call("INFO", "commandstats");
        Map<String, Long> calls = new TreeMap<>();
        for (String line : info.split("\r?\n", -1)) {
            if (!line.startsWith("cmdstat_")) {
                continue;
            }
            int colon = line.indexOf(':');
            String name = line.substring("cmdstat_".length(), colon);
            for (String field : line.substring(colon + 1).split(",", -1)) {
                if (field.startsWith("calls=")) {
                    calls.put(name, Long.parseLong(field.substring("calls=".length())));
                }
            }
        }
        return Collections.unmodifiableMap(calls);
    }

    /** {@code CONFIG RESETSTAT}: command statistics back to zero. */
    public void resetStats() {
        call("CONFIG", "RESETSTAT");
    }

    /** A clean shutdown (SIGTERM); waits for the process to exit. */
    public void stop() {
        Process p = process;
        if (p == null) {
            return;
        }
        if (paused) {
            resume();
        }
        p.destroy();
        awaitExit(p);
    }

    /** {@code kill -9}: the server dies at once, connections reset. */
    public void kill9() {
        Process p = process;
        if (p == null) {
            return;
        }
        p.destroyForcibly();
        awaitExit(p);
        paused = false;
    }

    /** SIGSTOP: the server keeps its sockets but answers nothing until {@link #resume()}. */
    public void pause() {
        signal("-STOP");
        paused = true;
    }

    /** SIGCONT: a paused server carries on. */
    public void resume() {
        signal("-CONT");
        paused = false;
    }

    /** Kills the server if it runs and starts a new, empty one on the same port. */
    public void restartEmpty() {
        kill9();
        IllegalStateException last = null;
        for (int attempt = 0; attempt < 50; attempt++) { // the old listener may take a moment to go
            try {
                launch();
                return;
            } catch (IllegalStateException e) {
                last = e;
                destroyQuietly();
                sleepMillis(100);
            }
        }
        throw last;
    }

    private void signal(String sig) {
        try {
            Process kill = new ProcessBuilder("kill", sig, Long.toString(pid())).inheritIO().start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill " + sig + " " + pid() + " failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static void awaitExit(Process p) {
        try {
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                p.waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void destroyQuietly() {
        Process p = process;
        if (p != null) {
            p.destroyForcibly();
            awaitExit(p);
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
        if (paused && isAlive()) {
            try {
                resume();
            } catch (RuntimeException ignored) {
                // killing it anyway
            }
        }
        destroyQuietly();
        try (var files = Files.walk(dir)) {
            files.sorted(Collections.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException ignored) {
            // a temp dir left behind is harmless
        }
    }

    @Override
    public String toString() {
        return "RedisServer[" + uri() + "]";
    }
}
