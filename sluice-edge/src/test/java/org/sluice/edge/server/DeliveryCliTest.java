package org.sluice.edge.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.edge.cli.DeliveryCommands;
import org.sluice.edge.store.DeliveryState;
import picocli.CommandLine;

/** {@code sluice destinations|dead|redeliver|replay} against a real server (real sockets, RocksDB in a temp dir). */
class DeliveryCliTest {

    @TempDir
    Path dir;

    record Run(int exit, String out, String err) {
    }

    private Run run(TestEdge edge, Callable<Integer> command, String... args) throws Exception {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = new CommandLine(command);
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        String[] all = new String[args.length + 4];
        all[0] = "--admin";
        all[1] = "http://127.0.0.1:" + edge.server.adminAddress().getPort();
        all[2] = "--data-dir";
        all[3] = dir.toString();
        System.arraycopy(args, 0, all, 4, args.length);
        return new Run(cli.execute(all), out.toString(), err.toString());
    }

    @Test
    void theDeliveryCommandsListRedeliverAndReplay() throws Exception {
        try (TestEdge edge = TestEdge.start(dir, DeliveryAdminTest.CONFIG)) {
            assertThat(Files.exists(dir.resolve("admin.token"))).isTrue();
            long from = System.currentTimeMillis() - 1;
            List<String> ids = DeliveryAdminTest.commit(edge, 4, "zeta", "app");
            DeliveryAdminTest.kill(edge, ids.get(1), "app");
            DeliveryAdminTest.kill(edge, ids.get(3), "app");
            DeliveryAdminTest.kill(edge, ids.get(3), "zeta");

            Run destinations = run(edge, new DeliveryCommands.Destinations().environment(Map.of()));
            assertThat(destinations.exit()).as(destinations.err()).isZero();
            List<String> lines = destinations.out().lines().toList();
            assertThat(lines.get(0)).startsWith("NAME").contains("STATE").contains("PENDING").contains("DEAD");
            assertThat(lines.get(1).split("\\s+")).startsWith("zeta", "http", "ok", "0", "3", "1");
            assertThat(lines.get(2).split("\\s+")).startsWith("app", "http", "ok", "0", "2", "2");

            Run dead = run(edge, new DeliveryCommands.Dead().environment(Map.of()), "--destination", "app");
            assertThat(dead.exit()).as(dead.err()).isZero();
            assertThat(dead.out()).contains(ids.get(1)).contains(ids.get(3)).contains("permanent_status")
                    .contains("2 dead letters").doesNotContain(ids.get(0));
            assertThat(run(edge, new DeliveryCommands.Dead().environment(Map.of())).out()).contains("3 dead letters");
            Run unknown = run(edge, new DeliveryCommands.Dead().environment(Map.of()), "--destination", "nope");
            assertThat(unknown.exit()).isEqualTo(1);
            assertThat(unknown.err()).contains("404 destination_not_found");

            Run redeliver = run(edge, new DeliveryCommands.Redeliver().environment(Map.of()), ids.get(3), "--destination", "zeta",
                    "--actor", "carol");
            assertThat(redeliver.exit()).as(redeliver.err()).isZero();
            assertThat(redeliver.out()).contains("redelivery scheduled: " + ids.get(3) + " to 1 destination");
            assertThat(DeliveryAdminTest.row(edge, ids.get(3), "zeta").state()).isEqualTo(DeliveryState.PENDING);
            assertThat(DeliveryAdminTest.row(edge, ids.get(3), "app").state()).isEqualTo(DeliveryState.DEAD);
            Run missing = run(edge, new DeliveryCommands.Redeliver().environment(Map.of()), "01890000-0000-7000-8000-000000000000");
            assertThat(missing.exit()).isEqualTo(1);
            assertThat(missing.err()).contains("404 hook_not_found");

            Run replay = run(edge, new DeliveryCommands.Replay().environment(Map.of()), "app", "--from", Instant.ofEpochMilli(from).toString(),
                    "--to", Instant.ofEpochMilli(System.currentTimeMillis() + 60_000).toString(), "--dead-only",
                    "--rate", "50", "--poll-ms", "20");
            assertThat(replay.exit()).as(replay.err()).isZero();
            List<String> progress = replay.out().lines().toList();
            assertThat(progress.get(0)).startsWith("replay ").endsWith("to app: 2 hooks to schedule");
            assertThat(progress.get(progress.size() - 2)).contains("] 2/2 scheduled, 0 delivered, 0 dead");
            assertThat(progress.get(progress.size() - 1)).endsWith(" done");
            assertThat(replay.out()).doesNotContain("\r");
            assertThat(DeliveryAdminTest.row(edge, ids.get(1), "app").state()).isEqualTo(DeliveryState.PENDING);
            assertThat(DeliveryAdminTest.row(edge, ids.get(3), "app").state()).isEqualTo(DeliveryState.PENDING);

            Run bad = run(edge, new DeliveryCommands.Replay().environment(Map.of()), "app", "--from", "2026-12-02T00:00:00Z",
                    "--to", "2026-12-01T00:00:00Z");
            assertThat(bad.exit()).isEqualTo(1);
            assertThat(bad.err()).contains("400 invalid_replay: from must be before to");
            assertThat(run(edge, new DeliveryCommands.Replay().environment(Map.of()), "app", "--from", "x").exit()).isEqualTo(2);

            // a range wider than 31 days needs --force (issue 46, point 7)
            String[] wide = {"app", "--from", "1970-01-01T00:00:00Z", "--to", "9999-12-31T00:00:00Z", "--dead-only",
                    "--poll-ms", "20"};
            Run refused = run(edge, new DeliveryCommands.Replay().environment(Map.of()), wide);
            assertThat(refused.exit()).isEqualTo(1);
            assertThat(refused.err()).contains("409 force_required");
            String[] forced = java.util.Arrays.copyOf(wide, wide.length + 1);
            forced[wide.length] = "--force";
            Run taken = run(edge, new DeliveryCommands.Replay().environment(Map.of()), forced);
            assertThat(taken.exit()).as(taken.err()).isZero();
            assertThat(taken.out().strip()).endsWith(" done");
        }
    }
}
