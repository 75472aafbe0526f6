package org.sluice.edge.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * The delivery commands, over the admin API: {@code sluice destinations},
 * {@code sluice dead [--destination NAME]}, {@code sluice redeliver ID} and
 * {@code sluice replay NAME --from T --to T [--dead-only] [--rate N] [--force]}.
 *
 * <p>Exit codes as {@code sluice limits}: 0 done; 1 the server refused (its status, error and
 * message on stderr); 2 a usage error; 3 the admin API could not be asked.
 */
public final class DeliveryCommands {

    private DeliveryCommands() {
    }

    /** Shared by the commands: the call wrapper (the environment is {@link AdminCommand}'s). */
    abstract static class Base extends AdminCommand {
        @Spec
        CommandLine.Model.CommandSpec spec;

        @Mixin
        AdminClientOptions options;

        @Override
        public final Integer call() throws InterruptedException {
            return AdminCall.run(spec, options, env(), client -> run(client, spec.commandLine().getOut()));
        }

        abstract int run(AdminClient client, PrintWriter out) throws AdminClient.Unreachable, InterruptedException;

        int refused(AdminClient.Answer answer) {
            return AdminCall.refused(spec, answer);
        }
    }

    /** {@code sluice destinations}: one line per configured destination. */
    @Command(name = "destinations", mixinStandardHelpOptions = true,
            description = "List the destinations with their state, backlog and totals.")
    public static final class Destinations extends Base {
        @Override
        int run(AdminClient client, PrintWriter out) throws AdminClient.Unreachable, InterruptedException {
            return AdminCall.expect(spec, client.get("/v1/destinations"), 200, (printed, body) -> {
                List<String[]> rows = new ArrayList<>();
                rows.add(new String[] {"NAME", "TYPE", "STATE", "IN_FLIGHT", "PENDING", "DEAD", "OLDEST_PENDING",
                        "DELIVERED", "FAILED_ATTEMPTS"});
                for (JsonNode d : body.get("destinations")) {
                    rows.add(new String[] {d.get("name").asText(), d.get("type").asText(), d.get("state").asText(),
                            d.get("in_flight").asText(), d.get("pending").asText(), d.get("dead").asText(),
                            age(d.get("oldest_pending_age_ms").asLong()), d.get("delivered_total").asText(),
                            d.get("failed_attempts_total").asText()});
                }
                table(printed, rows);
            });
        }
    }

    /** {@code sluice dead [--destination NAME]}: every dead letter, oldest hook first. */
    @Command(name = "dead", mixinStandardHelpOptions = true,
            description = "List dead letters (deliveries given up on), in hook order.")
    public static final class Dead extends Base {
        @Option(names = "--destination", paramLabel = "NAME", description = "only this destination's")
        String destination;

        /** Fixed columns, so that each page is printed as it arrives (memory does not grow with the dead letters). */
        private static final String ROW = "%-36s  %-16s  %-16s  %-8s  %-11s  %s";

        @Override
        int run(AdminClient client, PrintWriter out) throws AdminClient.Unreachable, InterruptedException {
            out.println(String.format(ROW, "ID", "DESTINATION", "REASON", "ATTEMPTS", "LAST_STATUS", "DEAD_AT"));
            long count = 0;
            String after = null;
            do {
                StringBuilder path = new StringBuilder("/v1/dead-letters?limit=1000");
                if (destination != null) {
                    path.append("&destination=").append(URLEncoder.encode(destination, StandardCharsets.UTF_8));
                }
                if (after != null) {
                    path.append("&after=").append(URLEncoder.encode(after, StandardCharsets.UTF_8));
                }
                AdminClient.Answer answer = client.get(path.toString());
                if (answer.status() != 200) {
                    return refused(answer);
                }
                for (JsonNode d : answer.body().get("dead_letters")) {
                    out.println(String.format(ROW, d.get("id").asText(), d.get("destination").asText(),
                            d.get("reason").asText(), d.get("attempts").asText(),
                            d.get("last_status").isNull() ? "-" : d.get("last_status").asText(), d.get("dead_at").asText())
                            .stripTrailing());
                    count++;
                }
                out.flush();
                after = answer.body().get("next").isNull() ? null : answer.body().get("next").asText();
            } while (after != null);
            out.println(count + " dead letter" + (count == 1 ? "" : "s"));
            return AdminClient.EXIT_OK;
        }
    }

    /** {@code sluice redeliver ID [--destination NAME]... [--force]}: a fresh delivery of one hook. */
    @Command(name = "redeliver", mixinStandardHelpOptions = true,
            description = "Deliver a hook again (attempts from 1), to every destination it has or to those named.")
    public static final class Redeliver extends Base {
        @Parameters(index = "0", paramLabel = "ID", description = "the hook's id")
        String id;

        @Option(names = "--destination", paramLabel = "NAME", description = "only to this destination (repeatable)")
        List<String> destinations;

        @Option(names = "--force", description = "also to a named destination the hook has no delivery to (its source"
                + " does not deliver there); audited as forced")
        boolean force;

        @Override
        int run(AdminClient client, PrintWriter out) throws AdminClient.Unreachable, InterruptedException {
            Object body = destinations == null || destinations.isEmpty() ? null
                    : force ? Map.of("destinations", destinations, "force", true) : Map.of("destinations", destinations);
            AdminClient.Answer answer = client.post("/v1/hooks/" + URLEncoder.encode(id, StandardCharsets.UTF_8)
                    + "/redeliver", body);
            return AdminCall.expect(spec, answer, 202, (printed, accepted) -> {
                int n = accepted.get("scheduled").asInt();
                printed.println("redelivery scheduled: " + id + " to " + n + " destination" + (n == 1 ? "" : "s"));
            });
        }
    }

    /** {@code sluice replay NAME --from T --to T [--dead-only] [--rate N] [--force]}: a paced replay, followed until done. */
    @Command(name = "replay", mixinStandardHelpOptions = true,
            description = "Deliver again to NAME the hooks received in [--from, --to), paced; shows progress until done.")
    public static final class Replay extends Base {
        @Parameters(index = "0", paramLabel = "NAME", description = "the destination")
        String name;

        @Option(names = "--from", required = true, paramLabel = "T", description = "start of the range, RFC 3339 (inclusive)")
        String from;

        @Option(names = "--to", required = true, paramLabel = "T", description = "end of the range, RFC 3339 (exclusive)")
        String to;

        @Option(names = "--dead-only", description = "only hooks whose delivery to NAME is dead")
        boolean deadOnly;

        @Option(names = "--rate", paramLabel = "N", defaultValue = "100",
                description = "redeliveries per second, 1 to 10000 (default: ${DEFAULT-VALUE})")
        int rate;

        @Option(names = "--force", description = "take a range wider than 31 days (audited as forced)")
        boolean force;

        @Option(names = "--poll-ms", paramLabel = "MS", defaultValue = "500",
                description = "how often to ask for progress (default: ${DEFAULT-VALUE})")
        long pollMillis;

        /** Null: ask {@code System.console()}; tests set it. */
        Boolean terminal;

        @Override
        int run(AdminClient client, PrintWriter out) throws AdminClient.Unreachable, InterruptedException {
            if (pollMillis < 1) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--poll-ms must be at least 1, got " + pollMillis);
            }
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("from", from);
            body.put("to", to);
            body.put("dead_only", deadOnly);
            body.put("rate", rate);
            if (force) {
                body.put("force", true);
            }
            AdminClient.Answer started = client.post("/v1/destinations/" + URLEncoder.encode(name, StandardCharsets.UTF_8)
                    + "/replay", body);
            if (started.status() != 202) {
                return refused(started);
            }
            String id = started.body().get("replay").asText();
            long total = started.body().get("scheduled").asLong();
            out.println("replay " + id + " to " + name + ": " + total + " hook" + (total == 1 ? "" : "s") + " to schedule");
            out.flush();
            boolean bar = terminal != null ? terminal : System.console() != null;
            String last = null;
            while (true) {
                AdminClient.Answer answer = client.get("/v1/replays/" + URLEncoder.encode(id, StandardCharsets.UTF_8));
                if (answer.status() != 200) {
                    if (bar) {
                        out.println();
                    }
                    return refused(answer);
                }
                JsonNode p = answer.body();
                boolean done = "done".equals(p.get("state").asText());
                String line = progress(p.get("scheduled").asLong(), total, p.get("delivered").asLong(), p.get("dead").asLong());
                if (bar) {
                    out.print("\r" + line);
                    if (done) {
                        out.println();
                    }
                } else if (!line.equals(last) || done) {
                    out.println(line);
                }
                out.flush();
                last = line;
                if (done) {
                    out.println("replay " + id + " done");
                    out.flush();
                    return AdminClient.EXIT_OK;
                }
                Thread.sleep(pollMillis);
            }
        }
    }

    /** {@code [##########----------] 12/40 scheduled, 3 delivered, 0 dead}. */
    static String progress(long scheduled, long total, long delivered, long dead) {
        int width = 30;
        int filled = total <= 0 ? width : (int) Math.min(width, scheduled * width / total);
        return "[" + "#".repeat(filled) + "-".repeat(width - filled) + "] " + scheduled + "/" + total + " scheduled, "
                + delivered + " delivered, " + dead + " dead";
    }

    /** {@code 1h02m}, {@code 3m05s}, {@code 12s}, {@code 0s}. */
    static String age(long millis) {
        long s = millis / 1000;
        if (s >= 3600) {
            return (s / 3600) + "h" + String.format("%02dm", (s % 3600) / 60);
        }
        if (s >= 60) {
            return (s / 60) + "m" + String.format("%02ds", s % 60);
        }
        return s + "s";
    }

    /** Columns padded to their widest cell. */
    static void table(PrintWriter out, List<String[]> rows) {
        int[] widths = new int[rows.get(0).length];
        for (String[] row : rows) {
            for (int i = 0; i < row.length; i++) {
                widths[i] = Math.max(widths[i], row[i].length());
            }
        }
        for (String[] row : rows) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < row.length; i++) {
                line.append(i == row.length - 1 ? row[i] : String.format("%-" + (widths[i] + 2) + "s", row[i]));
            }
            out.println(line.toString().stripTrailing());
        }
        out.flush();
    }
}
