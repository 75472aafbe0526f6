package org.sluice.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

/**
 * What {@link RedisServer} and {@link NatsServer} share: a server binary run as a child
 * process on a loopback port, in a temporary directory of its own, its output appended to
 * {@code <log prefix>-<port>.log} there (the last 2,000 characters go into every failure
 * message), up once {@link #ready(Path)} says so.
 *
 * <p>Ports: a free port is asked of the OS and given to the server, which may find it taken
 * by the time it binds: {@link #startOnFreePort} then tries another (three in all). A
 * restart on the same port ({@link #relaunch()}) tries for about five seconds, while the old
 * listener goes.
 *
 * <p>Stopping: {@link #terminate()} is SIGTERM, {@link #killNow()} SIGKILL; both wait for the
 * process to exit (SIGKILL after {@code exitWaitSeconds} of waiting for a SIGTERM). The
 * directory goes with {@link #deleteDir()}.
 */
abstract class ServerProcess {

    private static final int START_ATTEMPTS = 3;
    private static final int RESTART_ATTEMPTS = 50;
    private static final int READY_POLL_MILLIS = 10;

    final String binary;
    final Path dir;
    private final int port;
    private final List<String> extraArgs;
    private final String name;
    private final String logPrefix;
    private final int startTimeoutMillis;
    private final int exitWaitSeconds;
    private volatile Process process;

    /**
     * @param name               the binary's name in messages, e.g. {@code redis-server}
     * @param logPrefix          the log file is {@code <logPrefix>-<port>.log} in {@code dir}
     * @param startTimeoutMillis how long a start may take before it is a failure
     * @param exitWaitSeconds    how long a stop waits for the process before it kills it
     */
    ServerProcess(String binary, Path dir, int port, List<String> extraArgs, String name, String logPrefix,
                  int startTimeoutMillis, int exitWaitSeconds) {
        this.binary = binary;
        this.dir = dir;
        this.port = port;
        this.extraArgs = extraArgs;
        this.name = name;
        this.logPrefix = logPrefix;
        this.startTimeoutMillis = startTimeoutMillis;
        this.exitWaitSeconds = exitWaitSeconds;
    }

    /** The server's own arguments for {@link #port()} and {@link #dir} (the binary and the extra arguments aside). */
    abstract List<String> arguments();

    /** True once the server serves (it is alive; its log so far is {@code log}). */
    abstract boolean ready(Path log);

    /** What {@link #ready} waits for, for the message when it never comes: e.g. {@code answer PING}. */
    abstract String readyMeans();

    /** A new temporary directory named {@code prefix...}. */
    static Path tempDir(String prefix) {
        try {
            return Files.createTempDirectory(prefix);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A server from {@code create} (given a free port) that has started: three ports are tried. */
    static <S extends ServerProcess> S startOnFreePort(IntFunction<S> create) {
        IllegalStateException last = null;
        for (int attempt = 0; attempt < START_ATTEMPTS; attempt++) { // a free port may be taken before the server binds it
            S server = create.apply(freePort());
            try {
                server.launch();
                return server;
            } catch (IllegalStateException e) {
                last = e;
                server.killNow();
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

    /** Runs the server and waits until it is {@link #ready}; IllegalStateException if it exits or is slow. */
    final void launch() {
        List<String> cmd = new ArrayList<>();
        cmd.add(binary);
        cmd.addAll(arguments());
        cmd.addAll(extraArgs);
        Path log = dir.resolve(logPrefix + "-" + port + ".log");
        try {
            process = new ProcessBuilder(cmd).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        } catch (IOException e) {
            throw new UncheckedIOException("could not run " + binary, e);
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(startTimeoutMillis);
        while (System.nanoTime() - deadline < 0) {
            if (!process.isAlive()) {
                throw new IllegalStateException(name + " exited on port " + port + ": " + tail(log));
            }
            if (ready(log)) {
                return;
            }
            sleepMillis(READY_POLL_MILLIS);
        }
        throw new IllegalStateException(name + " did not " + readyMeans() + " on port " + port + " within "
                + startTimeoutMillis + " ms: " + tail(log));
    }

    /** Starts the server again on the same port and directory, once the old process is gone. */
    final void relaunch() {
        IllegalStateException last = null;
        for (int attempt = 0; attempt < RESTART_ATTEMPTS; attempt++) { // the old listener may take a moment to go
            try {
                launch();
                return;
            } catch (IllegalStateException e) {
                last = e;
                killNow();
                sleepMillis(100);
            }
        }
        throw last;
    }

    /** The last 2,000 characters of {@code log}. */
    static String tail(Path log) {
        try {
            String text = Files.readString(log, StandardCharsets.UTF_8);
            return text.length() > 2000 ? text.substring(text.length() - 2000) : text;
        } catch (IOException e) {
            return "(no log)";
        }
    }

    public final int port() {
        return port;
    }

    public final boolean isAlive() {
        Process p = process;
        return p != null && p.isAlive();
    }

    /** The running (or last) process, or null before the first start. */
    final Process process() {
        return process;
    }

    /** SIGTERM, then waits for the exit. */
    final void terminate() {
        Process p = process;
        if (p != null) {
            p.destroy();
            awaitExit(p);
        }
    }

    /** SIGKILL, then waits for the exit. */
    final void killNow() {
        Process p = process;
        if (p != null) {
            p.destroyForcibly();
            awaitExit(p);
        }
    }

    private void awaitExit(Process p) {
        try {
            if (!p.waitFor(exitWaitSeconds, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                p.waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Removes the server's directory (a temp dir left behind is harmless). */
    final void deleteDir() {
        try (var files = Files.walk(dir)) {
            files.sorted(Collections.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException ignored) {
            // a temp dir left behind is harmless
        }
    }

    static void sleepMillis(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
