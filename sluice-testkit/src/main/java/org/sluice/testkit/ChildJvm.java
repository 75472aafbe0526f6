package org.sluice.testkit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A separate JVM running one {@code main} class on this process's classpath: the fixture
 * for tests of behaviour that spans processes (shared memory, a server killed mid-write).
 *
 * <pre>{@code
 * try (ChildJvm child = ChildJvm.builder(Hammer.class).args("/dev/shm/x", "4").start()) {
 *     child.awaitLine(l -> l.startsWith("ready"), Duration.ofSeconds(20));
 *     child.kill();                                  // SIGKILL
 *     int code = child.waitFor(Duration.ofSeconds(10));
 * }
 * }</pre>
 *
 * <p>The child uses the same {@code java} binary as this process and the same classpath
 * (under Surefire, the real test classpath rather than its manifest-only booter jar).
 * Its stdout and stderr are read by two daemon threads into bounded buffers (the last
 * {@value #MAX_LINES} lines of each are kept), so a chatty child can neither block on a
 * full pipe nor fill the heap. {@link #close()} kills a child that is still running, and
 * a shutdown hook kills any child left behind when the test JVM exits, so no test leaves
 * a process running.
 */
public final class ChildJvm implements AutoCloseable {

    /** Lines of stdout (and, separately, stderr) kept per child; older lines are dropped. */
    public static final int MAX_LINES = 10_000;

    private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> LIVE.forEach(Process::destroyForcibly), "child-jvm-reaper"));
    }

    private final Process process;
    private final String name;
    private final Lines stdout;
    private final Lines stderr;

    private ChildJvm(Process process, String name) {
        this.process = process;
        this.name = name;
        this.stdout = new Lines(process.getInputStream(), name + "-stdout");
        this.stderr = new Lines(process.getErrorStream(), name + "-stderr");
        LIVE.add(process);
        var unused = process.onExit().thenRun(() -> LIVE.remove(process)); // cleanup only: nothing waits on it
    }

    /** A builder for a child running {@code mainClass.main(args)}. */
    public static Builder builder(Class<?> mainClass) {
        return new Builder(mainClass.getName());
    }

    /** Starts a child running {@code mainClass.main(args)} with default options. */
    public static ChildJvm start(Class<?> mainClass, String... args) {
        return builder(mainClass).args(args).start();
    }

    /** The child's operating-system process id. */
    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** A snapshot of the stdout lines read so far (at most the last {@value #MAX_LINES}). */
    public List<String> stdoutLines() {
        return stdout.snapshot();
    }

    /** A snapshot of the stderr lines read so far (at most the last {@value #MAX_LINES}). */
    public List<String> stderrLines() {
        return stderr.snapshot();
    }

    /**
     * Waits until a stdout line matching {@code match} has been printed and returns the
     * first such line. Throws {@link IllegalStateException} (with the child's stderr) when
     * the child exits first or {@code timeout} passes.
     */
    public String awaitLine(Predicate<String> match, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            boolean ended = stdout.closed(); // read before scanning, so a last line is never missed
            String found = stdout.first(match);
            if (found != null) {
                return found;
            }
            if (ended) {
                throw new IllegalStateException(describe() + " closed stdout before printing the awaited line" + tails());
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new IllegalStateException(describe() + " did not print the awaited line within " + timeout + tails());
            }
            stdout.awaitChange(left);
        }
    }

    /**
     * Waits for the child to exit and returns its exit code (137 after {@link #kill()}
     * on Linux, 143 after {@link #terminate()} unless the child handles SIGTERM). Throws
     * {@link IllegalStateException} when it is still running after {@code timeout}; the
     * child is left running (and {@link #close()} kills it).
     */
    public int waitFor(Duration timeout) {
        try {
            if (!process.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
                throw new IllegalStateException(describe() + " still running after " + timeout + tails());
            }
            // let the readers drain what the child wrote before it exited
            stdout.join(2_000);
            stderr.join(2_000);
            return process.exitValue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for " + describe(), e);
        }
    }

    /**
     * Sends SIGKILL: the child stops at whatever instruction it is on. Signalled through the
     * {@link ProcessHandle}, not {@link Process#destroyForcibly()}, because the latter also
     * closes our ends of the child's output, losing lines it had already written.
     */
    public void kill() {
        process.toHandle().destroyForcibly();
    }

    /**
     * Sends SIGTERM: the child's shutdown hooks run, and what they print still reaches
     * {@link #stdoutLines()} (see {@link #kill()} for why the handle is used).
     */
    public void terminate() {
        process.toHandle().destroy();
    }

    /** Kills the child if it is still running and waits (briefly) for it to go. */
    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroyForcibly();
            try {
                process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public String toString() {
        return describe();
    }

    private String describe() {
        return "child JVM " + name + " (pid " + process.pid() + (process.isAlive() ? "" : ", exited " + process.exitValue()) + ")";
    }

    private String tails() {
        List<String> err = stderr.snapshot();
        List<String> out = stdout.snapshot();
        return "\n--- last stdout ---\n" + String.join("\n", out.subList(Math.max(0, out.size() - 20), out.size()))
                + "\n--- last stderr ---\n" + String.join("\n", err.subList(Math.max(0, err.size() - 40), err.size()));
    }

    // ---------------------------------------------------------------- builder

    /** Options for a child JVM; {@link #start()} launches it. */
    public static final class Builder {
        private final String mainClass;
        private final List<String> jvmArgs = new ArrayList<>();
        private final List<String> args = new ArrayList<>();
        private final Map<String, String> env = new LinkedHashMap<>();
        private Path workingDirectory;

        private Builder(String mainClass) {
            this.mainClass = mainClass;
        }

        /** Options for the {@code java} command before the main class, e.g. {@code -Xmx64m}. */
        public Builder jvmArgs(String... options) {
            Collections.addAll(jvmArgs, options);
            return this;
        }

        /** Arguments passed to {@code main}. */
        public Builder args(String... arguments) {
            Collections.addAll(args, arguments);
            return this;
        }

        /** An environment variable added to (or replacing one in) this process's environment. */
        public Builder env(String key, String value) {
            env.put(key, value);
            return this;
        }

        public Builder workingDirectory(Path dir) {
            this.workingDirectory = dir;
            return this;
        }

        public ChildJvm start() {
            List<String> command = new ArrayList<>();
            command.add(javaBinary());
            command.addAll(jvmArgs);
            command.add("-cp");
            command.add(classPath());
            command.add(mainClass);
            command.addAll(args);
            ProcessBuilder pb = new ProcessBuilder(command);
            pb.environment().putAll(env);
            if (workingDirectory != null) {
                pb.directory(workingDirectory.toFile());
            }
            try {
                String simple = mainClass.substring(mainClass.lastIndexOf('.') + 1);
                return new ChildJvm(pb.start(), simple);
            } catch (IOException e) {
                throw new UncheckedIOException("could not start a child JVM with command " + command, e);
            }
        }
    }

    /** The {@code java} binary running this process, else the one under {@code java.home}. */
    static String javaBinary() {
        return ProcessHandle.current().info().command()
                .filter(c -> Files.isExecutable(Paths.get(c)))
                .orElseGet(() -> Paths.get(System.getProperty("java.home"), "bin", "java").toString());
    }

    /**
     * This process's classpath. Surefire runs tests from a manifest-only jar and puts the
     * real classpath in {@code surefire.test.class.path}; prefer that when present.
     */
    static String classPath() {
        String surefire = System.getProperty("surefire.test.class.path");
        if (surefire != null && !surefire.isBlank()) {
            return surefire;
        }
        return System.getProperty("java.class.path");
    }

    // ---------------------------------------------------------------- output capture

    /** The last {@value #MAX_LINES} lines of one stream, read by a daemon thread. */
    private static final class Lines {
        private final ArrayDeque<String> lines = new ArrayDeque<>();
        private final Thread reader;
        private boolean closed;

        Lines(InputStream in, String threadName) {
            reader = new Thread(() -> pump(in), threadName);
            reader.setDaemon(true);
            reader.start();
        }

        private void pump(InputStream in) {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    synchronized (this) {
                        if (lines.size() == MAX_LINES) {
                            lines.removeFirst();
                        }
                        lines.addLast(line);
                        notifyAll();
                    }
                }
            } catch (IOException e) {
                // the stream closes when the process dies; what was read is kept
            } finally {
                synchronized (this) {
                    closed = true;
                    notifyAll();
                }
            }
        }

        synchronized List<String> snapshot() {
            return new ArrayList<>(lines);
        }

        synchronized String first(Predicate<String> match) {
            for (String l : lines) {
                if (match.test(l)) {
                    return l;
                }
            }
            return null;
        }

        synchronized boolean closed() {
            return closed;
        }

        synchronized void awaitChange(long nanos) {
            try {
                TimeUnit.NANOSECONDS.timedWait(this, Math.min(nanos, TimeUnit.MILLISECONDS.toNanos(100)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for a child's output", e);
            }
        }

        void join(long millis) throws InterruptedException {
            reader.join(millis);
        }
    }
}
