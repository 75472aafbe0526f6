package org.sluice.testkit;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
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
public final class RedisServer extends ServerProcess implements AutoCloseable {

    private static final int START_TIMEOUT_MILLIS = 15_000;
    private static final int CALL_TIMEOUT_MILLIS = 5_000;

    private volatile boolean paused;

    private RedisServer(String binary, Path dir, int port, List<String> extraArgs) {
        super(binary, dir, port, extraArgs, "redis-server", "redis", START_TIMEOUT_MILLIS, 10);
    }

    /** Starts a server on a free port and waits until it answers {@code PING}. */
    public static RedisServer start(String... extraArgs) {
        return startWith(binary(), extraArgs);
    }

    /** Like {@link #start} with a given {@code redis-server} binary. */
    public static RedisServer startWith(String binary, String... extraArgs) {
        Path dir = tempDir("sluice-redis");
        return startOnFreePort(port -> new RedisServer(binary, dir, port, List.of(extraArgs)));
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

    @Override
    List<String> arguments() {
        return List.of("--port", Integer.toString(port()),
                "--bind", "127.0.0.1",
                "--save", "",
                "--appendonly", "no",
                "--protected-mode", "no",
                "--daemonize", "no",
                "--dir", dir.toString());
    }

    @Override
    boolean ready(Path log) {
        try {
            return "PONG".equals(Resp.call(port(), 500, "PING"));
        } catch (RuntimeException notYet) {
            return false; // not listening yet
        }
    }

    @Override
    String readyMeans() {
        return "answer PING";
    }

    /** {@code redis://127.0.0.1:<port>}. */
    public String uri() {
        return "redis://127.0.0.1:" + port();
    }

    /** The server's process id. */
    public long pid() {
        return process().pid();
    }

    /** Sends one command with a raw socket and returns its reply (see {@link Resp}). */
    public Object call(String... args) {
        return Resp.call(port(), CALL_TIMEOUT_MILLIS, args);
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
        if (process() == null) {
            return;
        }
        if (paused) {
            resume();
        }
        terminate();
    }

    /** {@code kill -9}: the server dies at once, connections reset. */
    public void kill9() {
        if (process() == null) {
            return;
        }
        killNow();
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
        relaunch();
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
        killNow();
        deleteDir();
    }

    @Override
    public String toString() {
        return "RedisServer[" + uri() + "]";
    }
}
