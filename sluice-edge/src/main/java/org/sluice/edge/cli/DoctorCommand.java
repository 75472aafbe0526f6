package org.sluice.edge.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.sluice.edge.config.ConfigException;
import org.sluice.edge.config.ConfigLoader;
import org.sluice.edge.config.HostPort;
import org.sluice.edge.config.HttpTransport;
import org.sluice.edge.config.LimitScope;
import org.sluice.edge.config.SluiceConfig;
import org.sluice.edge.netio.IoTransport;
import org.sluice.edge.netio.TransportChoice;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code sluice doctor [--config FILE]}: checks what a first run trips over, one line each,
 * {@code ok}, {@code warn} or {@code FAIL} with how to fix it, and exits 1 when any check
 * failed (0 with warnings only):
 * <ul>
 *   <li>the configuration loads (every problem listed, as {@code check-config} does);</li>
 *   <li>the ingest and admin ports are free;</li>
 *   <li>the transport {@code http.transport} gives here, and whether io_uring runs (why not, when it does not);</li>
 *   <li>the data directory can be created and written, and on what file system;</li>
 *   <li>{@code /dev/shm} is there and writable, with its free space, for {@code scope: host};</li>
 *   <li>Redis answers {@code INFO server}, with its version, for {@code scope: fleet};</li>
 *   <li>each destination's host resolves, and each broker's address takes a connection;</li>
 *   <li>the kernel's clock source, which every timestamp and limiter reads.</li>
 * </ul>
 * Destinations are read from the configuration's tree (as {@code --forward-to} writes them),
 * so this command knows nothing of the delivery classes.
 */
@Command(name = "doctor", mixinStandardHelpOptions = true,
        description = "Check ports, data directory, /dev/shm, Redis, destinations and the clock; say how to fix each problem.")
final class DoctorCommand implements Callable<Integer> {

    static final int CONNECT_TIMEOUT_MS = 2000;
    static final Path CLOCK_SOURCE = Path.of("/sys/devices/system/clocksource/clocksource0/current_clocksource");

    @Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = {"-c", "--config"}, paramLabel = "FILE", description = "the configuration to check (default: the embedded one)")
    Path config;

    private PrintWriter out;
    private int failures;
    private int warnings;

    @Override
    public Integer call() {
        out = spec.commandLine().getOut();
        List<Object> tree = new ArrayList<>(1);
        SluiceConfig loaded;
        try {
            loaded = config == null ? ConfigLoader.loadDefault(System.getenv(), t -> keep(tree, t))
                    : ConfigLoader.load(config, System.getenv(), t -> keep(tree, t));
            ok("configuration " + (config == null ? "(embedded default)" : config) + " loads");
        } catch (ConfigException e) {
            for (String problem : e.errors()) {
                fail("configuration: " + problem, "fix it; `sluice check-config FILE` lists the same problems");
            }
            return finish();
        }
        port("http.listen", loaded.http().listen());
        port("admin.listen", loaded.admin().listen());
        transport(loaded.http().transport());
        dataDir(loaded.node().dataDir());
        if (loaded.rateLimits().scope() == LimitScope.HOST) {
            shm(loaded.rateLimits().hostArena());
        }
        if (loaded.rateLimits().scope() == LimitScope.FLEET) {
            for (URI redis : loaded.fleet().redis()) {
                redis(redis);
            }
        }
        destinations(tree.isEmpty() ? null : tree.get(0));
        clock();
        return finish();
    }

    private static Object keep(List<Object> holder, Object tree) {
        holder.add(tree);
        return tree;
    }

    private int finish() {
        out.println((failures == 0 ? "no problems" : failures + (failures == 1 ? " problem" : " problems"))
                + (warnings == 0 ? "" : ", " + warnings + (warnings == 1 ? " warning" : " warnings")));
        out.flush();
        return failures == 0 ? 0 : 1;
    }

    // ------------------------------------------------------------------ checks

    private void port(String key, HostPort listen) {
        if (listen.port() == 0) {
            ok(key + " " + listen + ": the system picks a free port");
            return;
        }
        try (ServerSocket probe = new ServerSocket()) {
            probe.bind(listen.socketAddress());
            ok(key + " " + listen + " is free");
        } catch (IOException | RuntimeException e) {
            fail(key + " " + listen + " cannot be bound: " + e.getMessage(),
                    "stop what listens there (`ss -ltnp 'sport = :" + listen.port() + "'` names it), or set another " + key);
        }
    }

    private void transport(HttpTransport setting) {
        Optional<String> ioUring = IoTransport.IO_URING.unavailability();
        TransportChoice choice;
        try {
            choice = setting.choose();
        } catch (IllegalArgumentException e) {
            fail(e.getMessage(), "set http.transport: auto, or remove the reason (for io_uring: sysctl"
                    + " kernel.io_uring_disabled=0, a seccomp profile that permits io_uring_setup, io_uring_enter and"
                    + " io_uring_register, a kernel of 5.14 or later)");
            return;
        }
        String line = "http.transport " + setting.configName() + ": " + choice;
        if (ioUring.isEmpty()) {
            ok(choice.transport() == IoTransport.IO_URING ? line : line + "; io_uring available");
        } else if (setting == HttpTransport.AUTO) {
            warn(line, "none needed to run; for io_uring, act on the reason (sysctl kernel.io_uring_disabled=0, a"
                    + " seccomp profile that permits io_uring_setup, io_uring_enter and io_uring_register, a kernel of"
                    + " 5.14 or later), or set http.transport: epoll to choose epoll on purpose");
        } else {
            ok(line + "; io_uring unavailable here: " + ioUring.get());
        }
    }

    private void dataDir(Path dir) {
        Path absolute = dir.toAbsolutePath().normalize();
        Path existing = absolute;
        while (existing != null && !Files.exists(existing)) {
            existing = existing.getParent();
        }
        if (existing == null || !Files.isDirectory(existing) || !Files.isWritable(existing)) {
            fail("node.data_dir " + dir + ": " + (existing == null ? "no parent exists" : existing + " is not a writable directory"),
                    "create it for the user that runs sluice (`mkdir -p " + absolute + "`) or set node.data_dir");
            return;
        }
        if (existing.equals(absolute)) {
            try {
                Files.delete(Files.createTempFile(absolute, ".doctor", ".tmp"));
            } catch (IOException e) {
                fail("node.data_dir " + dir + " cannot be written: " + e.getMessage(),
                        "give the user that runs sluice write access, or set node.data_dir");
                return;
            }
        }
        try {
            FileStore store = Files.getFileStore(existing);
            String type = store.type();
            String line = "node.data_dir " + dir + (existing.equals(absolute) ? " is writable" : " can be created in " + existing)
                    + " (" + type + ", " + mib(store.getUsableSpace()) + " MiB free)";
            if (List.of("nfs", "nfs4", "cifs", "smb3", "fuse", "fuse.sshfs").contains(type)) {
                warn(line, "RocksDB wants a local disk: its fsync and file locks are not dependable on " + type);
            } else if (type.equals("tmpfs")) {
                warn(line, "tmpfs is memory: every stored hook is lost at reboot; fine to try things, not to keep them");
            } else {
                ok(line);
            }
        } catch (IOException e) {
            warn("node.data_dir " + dir + ": its file system cannot be read (" + e.getMessage() + ")", "none needed to start");
        }
    }

    private void shm(Path arena) {
        Path dir = arena.toAbsolutePath().normalize().getParent();
        if (dir == null || !Files.isDirectory(dir) || !Files.isWritable(dir)) {
            fail("rate_limits.host_arena " + arena + ": " + dir + " is not a writable directory",
                    "scope: host maps its arena from shared memory: mount /dev/shm (tmpfs) or set rate_limits.host_arena");
            return;
        }
        try {
            FileStore store = Files.getFileStore(dir);
            ok("rate_limits.host_arena " + arena + ": " + dir + " is writable (" + store.type() + ", "
                    + mib(store.getUsableSpace()) + " MiB free)");
        } catch (IOException e) {
            warn("rate_limits.host_arena " + arena + ": its file system cannot be read (" + e.getMessage() + ")", "none needed");
        }
    }

    private void redis(URI redis) {
        String host = redis.getHost() == null ? "127.0.0.1" : redis.getHost();
        int port = redis.getPort() < 0 ? 6379 : redis.getPort();
        String where = redis.getScheme() + "://" + host + ":" + port;
        if ("rediss".equals(redis.getScheme())) {
            connect("fleet.redis " + where, host, port, "start Redis there or correct fleet.redis");
            return;
        }
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), CONNECT_TIMEOUT_MS);
            socket.setSoTimeout(CONNECT_TIMEOUT_MS);
            OutputStream o = socket.getOutputStream();
            o.write("*2\r\n$4\r\nINFO\r\n$6\r\nserver\r\n".getBytes(StandardCharsets.US_ASCII));
            o.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
            String first = in.readLine();
            if (first == null || first.startsWith("-")) {
                // an error reply: most often NOAUTH, which the real client answers with the URI's password
                ok("fleet.redis " + where + " answers (" + (first == null ? "closed" : first.substring(1)) + ")");
                return;
            }
            String version = "unknown";
            for (String line = in.readLine(); line != null && !line.isEmpty(); line = in.readLine()) {
                if (line.startsWith("redis_version:")) {
                    version = line.substring("redis_version:".length()).strip();
                    break;
                }
            }
            ok("fleet.redis " + where + " answers: Redis " + version);
        } catch (IOException e) {
            fail("fleet.redis " + where + " does not answer: " + e.getMessage(),
                    "start Redis there (`redis-server`), or correct fleet.redis; scope: fleet needs it");
        }
    }

    @SuppressWarnings("unchecked")
    private void destinations(Object tree) {
        if (!(tree instanceof Map<?, ?> root) || !(root.get("destinations") instanceof Map<?, ?> named)) {
            return;
        }
        for (Map.Entry<?, ?> e : named.entrySet()) {
            if (!(e.getValue() instanceof Map<?, ?> d)) {
                continue;
            }
            String name = String.valueOf(e.getKey());
            String type = ConfigLoader.text(d.get("type"));
            if (type == null || type.equals("http")) {
                URI url = URI.create(ConfigLoader.text(d.get("url")));
                resolve("destinations." + name + ".url", url.getHost());
            } else {
                String key = type.equals("kafka") ? "bootstrap_servers" : "servers";
                if (d.get(key) instanceof List<?> servers) {
                    for (Object server : servers) {
                        broker("destinations." + name + "." + key, ConfigLoader.text(server));
                    }
                }
            }
        }
    }

    private void resolve(String key, String host) {
        try {
            InetAddress[] all = InetAddress.getAllByName(host);
            ok(key + ": " + host + " resolves to " + all[0].getHostAddress());
        } catch (UnknownHostException e) {
            fail(key + ": " + host + " does not resolve", "correct the host, or its DNS; deliveries would fail and be retried until dead");
        }
    }

    private void broker(String key, String address) {
        String text = address.contains("://") ? address.substring(address.indexOf("://") + 3) : address;
        int at = text.lastIndexOf('@');
        text = at >= 0 ? text.substring(at + 1) : text; // user info is never printed
        int slash = text.indexOf('/');
        text = slash >= 0 ? text.substring(0, slash) : text;
        int colon = text.lastIndexOf(':');
        if (colon < 0) {
            warn(key + ": " + text + " has no port", "write host:port");
            return;
        }
        connect(key + " " + text, text.substring(0, colon), Integer.parseInt(text.substring(colon + 1)),
                "start the broker there or correct " + key + "; deliveries are retried until it answers");
    }

    private void connect(String what, String host, int port, String fix) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), CONNECT_TIMEOUT_MS);
            ok(what + " takes a connection");
        } catch (IOException | RuntimeException e) {
            fail(what + " takes no connection: " + e.getMessage(), fix);
        }
    }

    private void clock() {
        try {
            String source = Files.readString(CLOCK_SOURCE).strip();
            if (List.of("tsc", "kvm-clock", "arch_sys_counter", "hyperv_clocksource_tsc_page").contains(source)) {
                ok("clock source " + source);
            } else {
                warn("clock source " + source + ": reading the time is a system call here, slower than tsc",
                        "none needed; on a VM, kvm-clock or tsc makes each timestamp cheaper");
            }
        } catch (IOException e) {
            ok("clock source: not Linux's " + CLOCK_SOURCE + " (nothing to check)");
        }
    }

    // ------------------------------------------------------------------ lines

    private void ok(String what) {
        out.println("ok    " + what);
    }

    private void warn(String what, String fix) {
        warnings++;
        out.println("warn  " + what);
        out.println("      fix: " + fix);
    }

    private void fail(String what, String fix) {
        failures++;
        out.println("FAIL  " + what);
        out.println("      fix: " + fix);
    }

    private static long mib(long bytes) {
        return bytes >> 20;
    }
}
