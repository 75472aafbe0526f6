package org.sluice.edge.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code sluice tail [--follow] [--after ID]}: prints stored hooks in commit order, one
 * JSON object per line (the shape of {@code GET /v1/hooks/{id}}), paging through
 * {@code GET /v1/hooks}. Without {@code --follow} it stops at the last stored hook; with
 * it, it polls for new ones until interrupted. Reading never blocks ingest.
 *
 * <p>Exit codes: 0 done; 1 the server refused (e.g. an unknown {@code --after} id);
 * 2 a usage error; 3 the admin API could not be asked.
 */
@Command(name = "tail", mixinStandardHelpOptions = true,
        description = "Print stored hooks, one JSON line each, in commit order.")
public final class TailCommand extends AdminCommand {

    @Spec
    CommandLine.Model.CommandSpec spec;

    @Mixin
    AdminClientOptions options;

    @Option(names = {"-f", "--follow"}, description = "keep polling for new hooks until interrupted")
    boolean follow;

    @Option(names = "--after", paramLabel = "ID", description = "start after the hook with this id (default: the first hook)")
    String after;

    @Option(names = "--page", paramLabel = "N", defaultValue = "500",
            description = "hooks asked for per request, 1 to 1000 (default: ${DEFAULT-VALUE})")
    int page;

    @Option(names = "--poll-ms", paramLabel = "MS", defaultValue = "1000",
            description = "with --follow, how long to wait when no new hook is stored (default: ${DEFAULT-VALUE})")
    long pollMillis;

    @Override
    public Integer call() throws InterruptedException {
        if (page < 1 || page > 1000) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--page must be from 1 to 1000, got " + page);
        }
        if (pollMillis < 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--poll-ms must be at least 1, got " + pollMillis);
        }
        PrintWriter out = spec.commandLine().getOut();
        return AdminCall.run(spec, options, env(), client -> {
            String cursor = after;
            while (true) {
                String query = "/v1/hooks?limit=" + page
                        + (cursor == null ? "" : "&after=" + URLEncoder.encode(cursor, StandardCharsets.UTF_8));
                AdminClient.Answer answer = client.get(query);
                if (answer.status() != 200) {
                    return AdminCall.refused(spec, answer);
                }
                JsonNode hooks = answer.body().get("hooks");
                for (JsonNode hook : hooks) {
                    out.println(jsonLine(hook));
                    cursor = hook.get("id").asText();
                }
                out.flush();
                if (!answer.body().get("next").isNull()) {
                    continue; // more stored already: ask again at once
                }
                if (!follow) {
                    return AdminClient.EXIT_OK;
                }
                Thread.sleep(pollMillis);
            }
        });
    }

    private static String jsonLine(JsonNode hook) {
        try {
            return AdminClient.JSON.writeValueAsString(hook);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
