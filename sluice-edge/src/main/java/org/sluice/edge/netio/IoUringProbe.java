package org.sluice.edge.netio;

import io.netty.channel.uring.IoUring;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;

/**
 * Why io_uring cannot run in this process, in the words an operator acts on. Netty probes once
 * (loading its native library, checking the kernel, creating a ring); when that fails this
 * reads what explains it, most specific first:
 * <ol>
 *   <li>{@code io_uring_disabled}: the sysctl {@code kernel.io_uring_disabled} is 1 (only
 *       members of {@code kernel.io_uring_group} may make rings) or 2 (nobody may);</li>
 *   <li>{@code old kernel}: a release before 5.14, the oldest Netty's io_uring runs on;</li>
 *   <li>{@code native library unavailable}: no native library for this platform, or it
 *       failed to load;</li>
 *   <li>{@code seccomp}: a seccomp filter (a container's default profile) refuses
 *       {@code io_uring_setup} with EPERM or ENOSYS;</li>
 *   <li>{@code memlock}: the ring's memory exceeds {@code RLIMIT_MEMLOCK} (old kernels);</li>
 *   <li>otherwise Netty's own message.</li>
 * </ol>
 */
final class IoUringProbe {

    static final Path DISABLED = Path.of("/proc/sys/kernel/io_uring_disabled");
    static final Path STATUS = Path.of("/proc/self/status");
    /** The oldest kernel Netty's io_uring transport supports. */
    static final int MIN_MAJOR = 5;
    static final int MIN_MINOR = 14;

    private IoUringProbe() {
    }

    /** Netty's probe of this process, explained; computed once. */
    static Optional<String> refusal() {
        return Probed.REFUSAL;
    }

    private static final class Probed {
        static final Optional<String> REFUSAL = IoUring.isAvailable() ? Optional.empty()
                : Optional.of(explain(IoUring.unavailabilityCause(), System.getProperty("os.name", ""),
                        System.getProperty("os.version", ""), read(DISABLED), seccompMode(read(STATUS))));
    }

    /**
     * The reason for a failed probe.
     *
     * @param cause       what Netty's probe threw
     * @param osName      {@code os.name}
     * @param kernel      {@code os.version}, the kernel release ({@code 6.8.0-45-generic})
     * @param disabled    the content of {@code /proc/sys/kernel/io_uring_disabled}, or null when unreadable
     * @param seccompMode the {@code Seccomp:} field of {@code /proc/self/status} (2: a filter is on), or null
     */
    static String explain(Throwable cause, String osName, String kernel, String disabled, String seccompMode) {
        String netty = describe(cause);
        if (!osName.toLowerCase(Locale.ROOT).startsWith("linux")) {
            return "native library unavailable: io_uring is Linux only, this is " + osName;
        }
        String setting = disabled == null ? "" : disabled.strip();
        if (setting.equals("1") || setting.equals("2")) {
            return "io_uring_disabled: kernel.io_uring_disabled is " + setting + (setting.equals("1")
                    ? " (only members of kernel.io_uring_group may create rings)" : " (no process may create rings)")
                    + "; " + netty;
        }
        if (olderThanMinimum(kernel)) {
            return "old kernel: " + kernel + " is older than " + MIN_MAJOR + "." + MIN_MINOR + ", the oldest Netty's"
                    + " io_uring runs on; " + netty;
        }
        if (isLinkFailure(cause)) {
            return "native library unavailable: " + netty;
        }
        String lower = netty.toLowerCase(Locale.ROOT);
        boolean refused = lower.contains("operation not permitted") || lower.contains("function not implemented");
        if (refused && "2".equals(seccompMode)) {
            return "seccomp: a seccomp filter on this process refuses io_uring_setup (a container's default profile"
                    + " does); " + netty;
        }
        if (lower.contains("cannot allocate memory")) {
            return "memlock: the ring does not fit under RLIMIT_MEMLOCK (ulimit -l); " + netty;
        }
        return netty;
    }

    /** The innermost cause's class and message: Netty wraps the one that says what failed. */
    static String describe(Throwable cause) {
        if (cause == null) {
            return "no reason given";
        }
        Throwable root = root(cause);
        String message = root.getMessage();
        return root.getClass().getSimpleName() + (message == null ? "" : ": " + message);
    }

    /** A library that did not load (or a class it needs): the innermost cause is a link error. */
    private static boolean isLinkFailure(Throwable cause) {
        return root(cause) instanceof LinkageError;
    }

    private static Throwable root(Throwable cause) {
        Throwable root = cause;
        while (root != null && root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root;
    }

    /** Whether a kernel release such as {@code 5.10.0-28-amd64} is older than {@value #MIN_MAJOR}.{@value #MIN_MINOR}. */
    static boolean olderThanMinimum(String kernel) {
        String[] parts = kernel.split("[^0-9]+", 3);
        if (parts.length < 2 || parts[0].isEmpty() || parts[1].isEmpty()) {
            return false; // unreadable: say nothing about its age
        }
        try {
            int major = Integer.parseInt(parts[0]);
            int minor = Integer.parseInt(parts[1]);
            return major < MIN_MAJOR || (major == MIN_MAJOR && minor < MIN_MINOR);
        } catch (NumberFormatException e) {
            return false;
        }
    }

    /** The {@code Seccomp:} mode in a {@code /proc/self/status} text, or null. */
    static String seccompMode(String status) {
        if (status == null) {
            return null;
        }
        for (String line : status.split("\n")) {
            if (line.startsWith("Seccomp:")) {
                return line.substring("Seccomp:".length()).strip();
            }
        }
        return null;
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
