package org.sluice.edge.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.core.Limit;
import org.sluice.core.TenantLimits;
import org.sluice.edge.admin.AdminApi;
import org.sluice.edge.admin.AdminToken;
import org.sluice.edge.admin.AdmissionState;
import org.sluice.edge.admin.HookReader;
import org.sluice.edge.admin.InMemoryAuditedStore;
import org.sluice.edge.admin.JdkAdminServer;
import org.sluice.edge.config.AdminConfig;
import org.sluice.testkit.Eventually;
import org.sluice.testkit.ManualClock;
import picocli.CommandLine;

/** {@code sluice limits} and {@code sluice tail} over real HTTP against the admin API. */
class AdminCliTest {

    @TempDir
    Path dataDir;

    private InMemoryAuditedStore store;
    private TenantLimits limits;
    private final List<HookReader.Hook> hooks = new ArrayList<>();
    private JdkAdminServer server;
    private String token;

    @BeforeEach
    void start() throws Exception {
        store = new InMemoryAuditedStore(System::currentTimeMillis);
        limits = new TenantLimits(null, Map.of("acme", Limit.of(5, 2)), store, new ManualClock());
        AdminToken adminToken = AdminToken.resolve(AdminConfig.defaults(), dataDir);
        token = Files.readString(dataDir.resolve("admin.token")).strip();
        HookReader reader = new HookReader() {
            @Override
            public java.util.Optional<Hook> get(String id) {
                synchronized (hooks) {
                    return hooks.stream().filter(h -> h.id().equals(id)).findFirst();
                }
            }

            @Override
            public java.util.Optional<Page> after(String afterId, int limit) {
                synchronized (hooks) {
                    int from = 0;
                    if (afterId != null) {
                        from = -1;
                        for (int i = 0; i < hooks.size(); i++) {
                            if (hooks.get(i).id().equals(afterId)) {
                                from = i + 1;
                            }
                        }
                        if (from < 0) {
                            return java.util.Optional.empty();
                        }
                    }
                    int to = Math.min(hooks.size(), from + limit);
                    List<Hook> page = new ArrayList<>(hooks.subList(from, to));
                    return java.util.Optional.of(new Page(page, to < hooks.size() && !page.isEmpty()
                            ? page.get(page.size() - 1).id() : null));
                }
            }
        };
        AdminApi api = AdminApi.builder().token(adminToken).limits(limits).audit(store).hooks(reader)
                .admission(() -> new AdmissionState("node", false, List.of(), new AdmissionState.Queue(0, 0, 1, 1), null, null))
                .instanceMaxBodyBytes(1_000_000).build();
        server = new JdkAdminServer(api);
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private record Run(int exit, String out, String err) {
    }

    private Run run(Object command, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = new CommandLine(command);
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int exit = cl.execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    private Run limitsCmd(Map<String, String> env, String... args) {
        return run(new LimitsCommand().environment(env), args);
    }

    private String[] withServer(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.add("--admin");
        all.add(server.url());
        all.add("--data-dir");
        all.add(dataDir.toString());
        return all.toArray(String[]::new);
    }

    @Test
    void setGetDeleteRoundTripWithTheTokenFromTheDataDir() {
        Run set = limitsCmd(Map.of(), withServer("set", "acme", "--rate", "10", "--burst", "20",
                "--bytes-per-second", "1000.5", "--max-queue", "3", "--actor", "ops-oncall"));
        assertThat(set.exit()).as(set.err()).isEqualTo(0);
        assertThat(set.out()).isEqualTo("override set. acme: rate=10 burst=20 bytes_per_second=1000.5 max_queue=3 (override)\n");
        assertThat(limits.effective("acme").limit())
                .isEqualTo(Limit.of(10, 20).withBytesPerSecond(1000.5).withMaxQueue(3));
        assertThat(store.newest(1).get(0).actor()).isEqualTo("ops-oncall");

        Run get = limitsCmd(Map.of(), withServer("get", "acme"));
        assertThat(get.exit()).isEqualTo(0);
        assertThat(get.out()).isEqualTo("acme: rate=10 burst=20 bytes_per_second=1000.5 max_queue=3 (override)\n");

        Run list = limitsCmd(Map.of(), withServer("list"));
        assertThat(list.out()).isEqualTo("""
                default: none (tenants without a limit are unlimited)
                acme: rate=10 burst=20 bytes_per_second=1000.5 max_queue=3 (override)
                """);

        Run delete = limitsCmd(Map.of(), withServer("delete", "acme"));
        assertThat(delete.exit()).isEqualTo(0);
        assertThat(delete.out()).isEqualTo("override deleted. Now acme: rate=5 burst=2 (config)\n");
        assertThat(store.newest(1).get(0).actor()).isEqualTo("admin");

        Run again = limitsCmd(Map.of(), withServer("delete", "acme"));
        assertThat(again.exit()).isEqualTo(1);
        assertThat(again.err()).isEqualTo("sluice: acme has no override (nothing deleted)\n");

        assertThat(limitsCmd(Map.of(), withServer("get", "nobody")).out())
                .isEqualTo("nobody: unlimited (no override, config entry or default applies)\n");
    }

    @Test
    void theServersRefusalIsPrintedWithExit1() {
        Run bad = limitsCmd(Map.of(), withServer("set", "acme", "--rate", "1", "--burst", "0"));
        assertThat(bad.exit()).isEqualTo(1);
        assertThat(bad.err()).isEqualTo("sluice: the server refused: 400 invalid_rate_limit: "
                + "burst must be an integer of at least 1, got 0\n");
        Run badTenant = limitsCmd(Map.of(), withServer("get", "no such/tenant"));
        assertThat(badTenant.exit()).isEqualTo(1);
        assertThat(badTenant.err()).isEqualTo("sluice: the server refused: 400 invalid_tenant\n");
        assertThat(store.load()).isEmpty();
    }

    @Test
    void theEnvironmentTokenWinsAndAWrongOneIs401() {
        Run wrong = limitsCmd(Map.of("SLUICE_ADMIN_TOKEN", "not-it"), withServer("get", "acme"));
        assertThat(wrong.exit()).isEqualTo(1);
        assertThat(wrong.err()).isEqualTo("sluice: the server refused: 401 unauthorized\n");
        Run right = limitsCmd(Map.of("SLUICE_ADMIN_TOKEN", token), "get", "acme", "--admin", server.url(),
                "--data-dir", dataDir.resolve("nowhere").toString());
        assertThat(right.exit()).isEqualTo(0);
    }

    @Test
    void noTokenOrNoServerIsExit3WithAClearMessage() throws Exception {
        Path empty = dataDir.resolve("empty");
        Run noToken = limitsCmd(Map.of(), "get", "acme", "--admin", server.url(), "--data-dir", empty.toString());
        assertThat(noToken.exit()).isEqualTo(3);
        assertThat(noToken.err()).isEqualTo("sluice: no admin token: set $SLUICE_ADMIN_TOKEN or point --data-dir at the "
                + "server's node.data_dir (no " + empty.resolve("admin.token") + ")\n");
        int closedPort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
        Run down = limitsCmd(Map.of(), "get", "acme", "--admin", "http://127.0.0.1:" + closedPort,
                "--data-dir", dataDir.toString());
        assertThat(down.exit()).isEqualTo(3);
        assertThat(down.err()).startsWith("sluice: cannot connect to the admin API at http://127.0.0.1:" + closedPort);
        Run badUrl = limitsCmd(Map.of(), "get", "acme", "--admin", "ftp://x", "--data-dir", dataDir.toString());
        assertThat(badUrl.exit()).isEqualTo(3);
    }

    @Test
    void missingRequiredOptionsAreAUsageError() {
        Run r = limitsCmd(Map.of(), withServer("set", "acme", "--rate", "5"));
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("Missing required option: '--burst=B'");
        assertThat(store.load()).isEmpty();
    }

    @Test
    void theSluiceCommandLineHasLimitsAndTail() {
        CommandLine sluice = new CommandLine(new Main());
        assertThat(sluice.getSubcommands()).containsKeys("limits", "tail");
        assertThat(sluice.getSubcommands().get("limits").getSubcommands()).containsKeys("get", "set", "delete", "list");
    }

    // ------------------------------------------------------------------ tail

    private void addHooks(int n) {
        synchronized (hooks) {
            int base = hooks.size();
            for (int i = base; i < base + n; i++) {
                hooks.add(new HookReader.Hook(String.format("0190bbbb-0000-7000-8000-%012d", i), "acme", "open",
                        1_764_672_000_000L + i, Map.of("X-Event-Id", "e" + i), ("body " + i).getBytes(StandardCharsets.UTF_8)));
            }
        }
    }

    @Test
    void tailPrintsEveryHookOnceInOrderAcrossPagesAsJsonLines() throws Exception {
        addHooks(1234);
        Run r = run(new TailCommand().environment(Map.of()), withServer("--page", "100"));
        assertThat(r.exit()).as(r.err()).isEqualTo(0);
        String[] lines = r.out().split("\n");
        assertThat(lines).hasSize(1234);
        ObjectMapper json = new ObjectMapper();
        for (int i = 0; i < lines.length; i++) {
            JsonNode hook = json.readTree(lines[i]);
            assertThat(hook.get("id").asText()).isEqualTo(String.format("0190bbbb-0000-7000-8000-%012d", i));
            assertThat(hook.get("body_base64").asText())
                    .isEqualTo(java.util.Base64.getEncoder().encodeToString(("body " + i).getBytes(StandardCharsets.UTF_8)));
        }
        Run after = run(new TailCommand().environment(Map.of()), withServer("--after", "0190bbbb-0000-7000-8000-000000001230"));
        assertThat(after.out().split("\n")).hasSize(3);
        Run unknown = run(new TailCommand().environment(Map.of()), withServer("--after", "0190bbbb-0000-7000-8000-999999999999"));
        assertThat(unknown.exit()).isEqualTo(1);
        assertThat(unknown.err()).startsWith("sluice: the server refused: 400 invalid_after: no stored hook has id");
        assertThat(run(new TailCommand().environment(Map.of()), withServer("--page", "0")).exit()).isEqualTo(2);
    }

    @Test
    void tailFollowPicksUpHooksStoredLater() throws Exception {
        addHooks(3);
        StringWriter out = new StringWriter();
        CommandLine cl = new CommandLine(new TailCommand().environment(Map.of()));
        cl.setOut(new PrintWriter(out, true));
        AtomicInteger exit = new AtomicInteger(-1);
        Thread follower = new Thread(() -> exit.set(cl.execute(withServer("--follow", "--poll-ms", "20"))));
        follower.start();
        try {
            awaitLines(out, 3);
            addHooks(5);
            awaitLines(out, 8);
        } finally {
            follower.interrupt();
            follower.join(10_000);
        }
        String[] lines = out.toString().split("\n");
        assertThat(lines).hasSize(8);
        for (int i = 0; i < 8; i++) {
            assertThat(lines[i]).contains(String.format("\"id\":\"0190bbbb-0000-7000-8000-%012d\"", i));
        }
    }

    private static void awaitLines(StringWriter out, int n) {
        Eventually.until("tail to print " + n + " lines",
                () -> (out.toString().isEmpty() ? 0 : out.toString().split("\n").length) >= n);
    }
}
