package org.sluice.edge.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code sluice limits get|set|delete TENANT} and {@code sluice limits list}: a tenant's
 * runtime rate-limit override through the admin API ({@code /v1/tenants/{tenant}/rate-limit}).
 *
 * <p>Exit codes: 0 done; 1 the server refused (its error is printed, e.g.
 * {@code 400 invalid_rate_limit: burst must be ...}, or no override to delete); 2 a usage
 * error; 3 the admin API could not be asked (no token, nothing listening).
 */
@Command(name = "limits", mixinStandardHelpOptions = true,
        description = "Read and change tenants' rate limits on a running server (admin API).",
        subcommands = {LimitsCommand.Get.class, LimitsCommand.Set.class, LimitsCommand.Delete.class,
                LimitsCommand.ListAll.class})
public final class LimitsCommand extends AdminCommand {

    @Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getOut());
        return 2;
    }

    /** {@code sluice limits get TENANT}. */
    @Command(name = "get", description = "Print the limit that applies to TENANT and where it comes from.")
    static final class Get extends OfTenant {
        @Override
        int run(AdminClient client) throws AdminClient.Unreachable, InterruptedException {
            return AdminCall.expect(spec, client.get(tenantPath(tenant)), 200, (out, body) -> out.println(effectiveLine(body)));
        }
    }

    /** {@code sluice limits set TENANT --rate R --burst B [...]}. */
    @Command(name = "set", description = "Set TENANT's override; it replaces the tenant's limit whole and resets its buckets.")
    static final class Set extends OfTenant {
        @Option(names = "--rate", required = true, paramLabel = "R", description = "hooks per second (may be fractional)")
        BigDecimal rate;
        @Option(names = "--burst", required = true, paramLabel = "B", description = "most hooks back to back")
        long burst;
        @Option(names = "--bytes-per-second", paramLabel = "N", description = "body bytes per second")
        BigDecimal bytesPerSecond;
        @Option(names = "--burst-bytes", paramLabel = "N", description = "most body bytes back to back")
        Long burstBytes;
        @Option(names = "--max-body-bytes", paramLabel = "N", description = "biggest body")
        Long maxBodyBytes;
        @Option(names = "--max-queue", paramLabel = "N", description = "hooks held in flight at once")
        Long maxQueue;
        @Option(names = "--max-queue-bytes", paramLabel = "N", description = "body bytes held in flight at once")
        Long maxQueueBytes;

        @Override
        int run(AdminClient client) throws AdminClient.Unreachable, InterruptedException {
            Map<String, Object> limit = new LinkedHashMap<>();
            limit.put("rate", rate);
            limit.put("burst", burst);
            putIfSet(limit, "bytes_per_second", bytesPerSecond);
            putIfSet(limit, "burst_bytes", burstBytes);
            putIfSet(limit, "max_body_bytes", maxBodyBytes);
            putIfSet(limit, "max_queue", maxQueue);
            putIfSet(limit, "max_queue_bytes", maxQueueBytes);
            return AdminCall.expect(spec, client.put(tenantPath(tenant), limit), 200,
                    (out, body) -> out.println("override set. " + effectiveLine(body)));
        }

        private static void putIfSet(Map<String, Object> limit, String key, Object value) {
            if (value != null) {
                limit.put(key, value);
            }
        }
    }

    /** {@code sluice limits delete TENANT}. */
    @Command(name = "delete", description = "Remove TENANT's override so the config's limit applies again.")
    static final class Delete extends OfTenant {
        @Override
        int run(AdminClient client) throws AdminClient.Unreachable, InterruptedException {
            AdminClient.Answer answer = client.delete(tenantPath(tenant));
            if (answer.status() == 404 && "rate_limit_not_found".equals(answer.error())) {
                spec.commandLine().getErr().println("sluice: " + tenant + " has no override (nothing deleted)");
                return AdminClient.EXIT_REFUSED;
            }
            if (answer.status() != 204) {
                return AdminCall.refused(spec, answer);
            }
            AdminClient.Answer now = client.get(tenantPath(tenant));
            String after = now.status() == 200 ? " Now " + effectiveLine(now.body()) : "";
            spec.commandLine().getOut().println("override deleted." + after);
            return AdminClient.EXIT_OK;
        }
    }

    /** {@code sluice limits list}. */
    @Command(name = "list", description = "Print the default and every tenant with an override or a config entry.")
    static final class ListAll extends Sub {
        @Override
        int run(AdminClient client) throws AdminClient.Unreachable, InterruptedException {
            return AdminCall.expect(spec, client.get("/v1/rate-limits"), 200, (out, body) -> {
                out.println("default: " + (body.get("default").isNull() ? "none (tenants without a limit are unlimited)"
                        : limitText(body.get("default"))));
                for (JsonNode row : body.get("tenants")) {
                    out.println(row.get("tenant").asText() + ": " + limitText(row.get("limit"))
                            + " (" + row.get("source").asText() + ")");
                }
            });
        }
    }

    // ------------------------------------------------------------------ shared

    /** What every subcommand is given: the parent (for the environment), its spec and the admin-API options. */
    abstract static class Sub implements Callable<Integer> {
        @ParentCommand LimitsCommand parent;
        @Spec CommandLine.Model.CommandSpec spec;
        @Mixin AdminClientOptions options;

        @Override
        public final Integer call() throws InterruptedException {
            return AdminCall.run(spec, options, parent.env(), this::run);
        }

        abstract int run(AdminClient client) throws AdminClient.Unreachable, InterruptedException;
    }

    /** A subcommand about one tenant. */
    abstract static class OfTenant extends Sub {
        @Parameters(index = "0", paramLabel = "TENANT") String tenant;
    }

    static String tenantPath(String tenant) {
        // Sent as typed: the server validates the id ([A-Za-z0-9_-]{1,64}); anything a URL
        // cannot carry is percent-encoded and then refused there as invalid_tenant.
        return "/v1/tenants/" + java.net.URLEncoder.encode(tenant, java.nio.charset.StandardCharsets.UTF_8)
                .replace("+", "%20") + "/rate-limit";
    }

    /** {@code acme: rate=10 burst=20 (override)} or {@code acme: unlimited (none)}. */
    static String effectiveLine(JsonNode view) {
        String tenant = view.get("tenant").asText();
        String source = view.get("source").asText();
        if (view.get("limit").isNull()) {
            return tenant + ": unlimited (no override, config entry or default applies)";
        }
        return tenant + ": " + limitText(view.get("limit")) + " (" + source + ")";
    }

    static String limitText(JsonNode limit) {
        StringBuilder out = new StringBuilder();
        for (Iterator<Map.Entry<String, JsonNode>> it = limit.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> field = it.next();
            out.append(out.length() == 0 ? "" : " ").append(field.getKey()).append('=').append(field.getValue().asText());
        }
        return out.toString();
    }
}
