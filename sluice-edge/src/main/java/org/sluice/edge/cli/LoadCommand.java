package org.sluice.edge.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import java.util.function.Function;
import org.sluice.edge.load.HtmlReport;
import org.sluice.edge.load.LoadOptions;
import org.sluice.edge.load.LoadRun;
import org.sluice.edge.load.LoadSummary;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code sluice load}: offers signed webhooks at a fixed rate (open loop) and reports what
 * the edge answered and how fast. The work is in {@code org.sluice.edge.load}; this class
 * reads the flags and prints.
 *
 * <p>Progress goes to standard error (one line rewritten in place on a terminal, a plain
 * line a second otherwise), so standard output holds only the {@code --json} summary.
 *
 * <p>Exit codes: 0 the run finished; 1 nothing could connect, or the report could not be
 * written; 2 a usage error.
 */
@Command(name = "load", mixinStandardHelpOptions = true,
        description = "Offer signed webhooks at a fixed rate (open loop); report answers and latency.")
public final class LoadCommand implements Callable<Integer> {

    @Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--url", required = true, paramLabel = "URL", description = "the ingest prefix, e.g. http://127.0.0.1:8080/hooks")
    String url;

    @Option(names = "--source", required = true, paramLabel = "ID", description = "the source id")
    String source;

    @Option(names = "--scheme", required = true, paramLabel = "SCHEME", description = "hmac, github, stripe or standard_webhooks")
    String scheme;

    /** Environment variable holding the source's secret, when neither flag names one. */
    static final String SECRET_ENV = "SLUICE_LOAD_SECRET";

    @Option(names = "--secret-file", paramLabel = "FILE",
            description = "a file holding the source's signing secret (one trailing newline is dropped)")
    Path secretFile;

    @Option(names = "--secret", paramLabel = "S",
            description = "the source's signing secret; visible to other users in ps: prefer --secret-file or $" + SECRET_ENV)
    String secret;

    /** How the environment is read; tests replace it. */
    Function<String, String> environment = System::getenv;

    @Option(names = "--rate", required = true, paramLabel = "N", description = "requests offered per second")
    long rate;

    @Option(names = "--duration", paramLabel = "D", defaultValue = "60s", description = "how long to offer: 500ms, 60s, 5m (default: ${DEFAULT-VALUE})")
    String duration;

    @Option(names = "--connections", paramLabel = "N", defaultValue = "64", description = "keep-alive connections (default: ${DEFAULT-VALUE})")
    int connections;

    @Option(names = "--body-bytes", paramLabel = "N", defaultValue = "1024", description = "bytes per JSON body (default: ${DEFAULT-VALUE})")
    int bodyBytes;

    @Option(names = "--duplicates", paramLabel = "P", defaultValue = "0", description = "share of requests that resend an accepted event (default: ${DEFAULT-VALUE})")
    double duplicates;

    @Option(names = "--bad-signatures", paramLabel = "P", defaultValue = "0", description = "share of requests with a corrupted signature (default: ${DEFAULT-VALUE})")
    double badSignatures;

    @Option(names = "--tenants", paramLabel = "N", defaultValue = "0", description = "spread over tenant-1..tenant-N in the path (tenant_path routing); 0: no tenant segment (default: ${DEFAULT-VALUE})")
    int tenants;

    @Option(names = "--seed", paramLabel = "N", defaultValue = "1", description = "seed for the choice of duplicates, bad signatures and tenants (default: ${DEFAULT-VALUE})")
    long seed;

    @Option(names = "--report", paramLabel = "FILE", description = "write a self-contained HTML report here")
    Path report;

    @Option(names = "--json", description = "print the summary as JSON on standard output at the end")
    boolean json;

    /**
     * The secret from {@code --secret-file}, {@code --secret} or {@code $SLUICE_LOAD_SECRET}: one of
     * the flags at most; the environment only when neither is given.
     */
    private String secret() {
        if (secretFile != null && secret != null) {
            throw usage("--secret-file and --secret name the secret twice: give one");
        }
        if (secretFile != null) {
            try {
                String text = Files.readString(secretFile, StandardCharsets.UTF_8);
                return text.endsWith("\r\n") ? text.substring(0, text.length() - 2)
                        : text.endsWith("\n") ? text.substring(0, text.length() - 1) : text;
            } catch (IOException e) {
                throw usage("--secret-file " + secretFile + " cannot be read: " + e.getClass().getSimpleName());
            }
        }
        if (secret != null) {
            return secret;
        }
        String fromEnv = environment.apply(SECRET_ENV);
        if (fromEnv == null) {
            throw usage("the source's secret is missing: give --secret-file FILE or set $" + SECRET_ENV
                    + " (--secret S works too, but shows the secret in ps)");
        }
        return fromEnv;
    }

    private CommandLine.ParameterException usage(String message) {
        return new CommandLine.ParameterException(spec.commandLine(), message);
    }

    @Override
    public Integer call() throws InterruptedException {
        LoadOptions options;
        String secret = secret();
        try {
            options = new LoadOptions(new URI(url), source, scheme, secret, rate, LoadOptions.parseDuration(duration),
                    connections, bodyBytes, duplicates, badSignatures, tenants, seed);
        } catch (URISyntaxException e) {
            throw usage("--url must be an http or https URL with a host, got \"" + url + "\"");
        } catch (IllegalArgumentException e) {
            throw usage(e.getMessage());
        }
        List<String> problems = options.problems();
        if (!problems.isEmpty()) {
            throw usage(String.join("\n", problems));
        }
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        boolean terminal = System.console() != null;
        Consumer<String> progress = terminal
                ? line -> {
                    err.print("\r\033[K" + line);
                    err.flush();
                }
                : line -> {
                    err.println(line);
                    err.flush();
                };
        LoadRun.Result result;
        try {
            result = LoadRun.run(options, progress);
        } catch (IllegalArgumentException e) {
            throw usage(e.getMessage());
        } catch (IllegalStateException e) {
            err.println("sluice: " + e.getMessage());
            err.flush();
            return 1;
        }
        if (terminal) {
            err.println();
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> latency = (Map<String, Object>) result.summary().get("latency_ms");
        err.println("sluice: latency from the intended send time (ms): p50 " + latency.get("p50") + "  p90 "
                + latency.get("p90") + "  p99 " + latency.get("p99") + "  p99.9 " + latency.get("p999") + "  max "
                + latency.get("max") + "; achieved " + result.summary().get("achieved_rate") + "/s of "
                + result.summary().get("offered_rate") + "/s offered");
        err.flush();
        if (report != null) {
            try {
                HtmlReport.write(report, options, result);
                err.println("sluice: report written to " + report);
                err.flush();
            } catch (IOException e) {
                err.println("sluice: cannot write the report " + report + ": " + e.getMessage());
                err.flush();
                return 1;
            }
        }
        if (json) {
            out.println(LoadSummary.toJson(result.summary()));
            out.flush();
        }
        return 0;
    }
}
