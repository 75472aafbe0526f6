package org.sluice.edge.cli;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.sluice.edge.config.HostPort;
import org.sluice.edge.threads.Threads;
import org.sluice.edge.verify.Verifier;
import org.sluice.edge.verify.Verifiers;
import org.sluice.edge.verify.VerifySpec;
import org.sluice.edge.verify.VerifyOutcome;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code sluice receive}: a small HTTP receiver to try delivery with, and to test one's own
 * setup against. It answers every request with {@code --status} (or, at {@code --fail-rate},
 * 503), after {@code --delay}, and prints one line per request on stdout:
 *
 * <pre>
 * 2026-12-06T21:04:05.123+00:00 webhook-id=0193… tenant=demo source=demo 28 bytes verified -> 200
 * </pre>
 *
 * The signature word is {@code verified} (a {@code webhook-signature} that matches
 * {@code --secret}), {@code bad (REASON)} (one that does not, or is malformed),
 * {@code unsigned} (none), or {@code unchecked} (signed, but no {@code --secret} to check it).
 * A bad signature is printed, not refused: the answer is always the one asked for.
 *
 * <p>Served by the JDK's own {@code com.sun.net.httpserver}: this is a test tool, one thread
 * per request in flight is plenty, and it keeps the real server's Netty code out of it.
 *
 * <p>Exit codes: 0 stopped by SIGTERM or SIGINT; 1 cannot listen (the address is in use);
 * 2 a usage error (a bad option value, named in the message).
 */
@Command(name = "receive", mixinStandardHelpOptions = true,
        description = "Receive deliveries: print one line per request and answer as told (to try Sluice out).")
final class ReceiveCommand implements Callable<Integer> {

    static final String DEFAULT_LISTEN = "127.0.0.1:3000";
    /** The answer to the share of requests {@code --fail-rate} fails. */
    static final int FAIL_STATUS = 503;
    /** Most body bytes read per request; the rest is counted, not kept. */
    static final int MAX_BODY_BYTES = 16 << 20;

    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSXXX", Locale.ROOT);
    private static final Pattern DURATION = Pattern.compile("(\\d{1,9})(ms|s)");

    @Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--listen", paramLabel = "HOST:PORT", defaultValue = DEFAULT_LISTEN,
            description = "where to listen (default ${DEFAULT-VALUE}; port 0 picks a free one)")
    String listen;

    @Option(names = "--secret", paramLabel = "whsec_...",
            description = "check each webhook-signature (Standard Webhooks) with this secret")
    String secret;

    @Option(names = "--status", paramLabel = "CODE", defaultValue = "200",
            description = "the status to answer with (default ${DEFAULT-VALUE})")
    int status;

    @Option(names = "--fail-rate", paramLabel = "FRACTION", defaultValue = "0",
            description = "answer this share of requests (0 to 1) with 503 instead, at random")
    double failRate;

    @Option(names = "--delay", paramLabel = "DURATION", defaultValue = "0ms",
            description = "wait this long before answering, e.g. 50ms or 2s (default ${DEFAULT-VALUE})")
    String delay;

    @Override
    public Integer call() throws InterruptedException {
        CommandLine cli = spec.commandLine();
        HostPort address = listenAddress(cli);
        if (status < 100 || status > 599) {
            throw new CommandLine.ParameterException(cli, "--status must be an HTTP status from 100 to 599, got " + status);
        }
        if (!(failRate >= 0 && failRate <= 1)) {
            throw new CommandLine.ParameterException(cli, "--fail-rate must be a fraction from 0 to 1, got " + failRate);
        }
        Duration wait = parseDelay(cli, delay);
        Verifier verifier = secret == null ? null : verifier(WebhookSecrets.check(cli, "--secret", secret));

        PrintWriter out = cli.getOut();
        PrintWriter err = cli.getErr();
        HttpServer server;
        try {
            server = HttpServer.create(address.socketAddress(), 64);
        } catch (BindException e) {
            err.println("sluice receive: cannot listen on " + address + ": the address is in use (another receiver?"
                    + " pick another with --listen)");
            err.flush();
            return 1;
        } catch (IOException | RuntimeException e) {
            err.println("sluice receive: cannot listen on " + address + ": " + e.getMessage());
            err.flush();
            return 1;
        }
        ExecutorService threads = Executors.newCachedThreadPool(Threads.named("sluice-receive"));
        server.setExecutor(threads);
        server.createContext("/", exchange -> answer(exchange, verifier, wait, out));
        server.start();

        UntilStopped stopped = new UntilStopped("sluice-receive-stop", () -> {
            server.stop(0);
            threads.shutdownNow();
        });
        InetSocketAddress bound = server.getAddress();
        out.println("sluice receive: listening on http://" + hostForUrl(address.host()) + ":" + bound.getPort()
                + "/ (answering " + status + (failRate > 0 ? ", " + FAIL_STATUS + " to a share of " + failRate : "")
                + (wait.isZero() ? "" : " after " + delay) + "; "
                + (verifier == null ? "signatures not checked: no --secret" : "checking webhook-signature") + ")");
        out.flush();
        stopped.await();
        return 0;
    }

    private void answer(HttpExchange exchange, Verifier verifier, Duration wait, PrintWriter out) throws IOException {
        String line;
        try (exchange) {
            byte[] body;
            long length;
            try (InputStream in = exchange.getRequestBody()) {
                body = in.readNBytes(MAX_BODY_BYTES);
                length = body.length + in.transferTo(OutputStream.nullOutputStream());
            }
            Headers headers = exchange.getRequestHeaders();
            String signature = signature(headers, body, verifier);
            if (!wait.isZero()) {
                try {
                    Thread.sleep(wait.toMillis());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
            int answer = failRate > 0 && ThreadLocalRandom.current().nextDouble() < failRate ? FAIL_STATUS : status;
            line = OffsetDateTime.now(ZoneId.systemDefault()).format(TIME)
                    + " " + exchange.getRequestMethod() + " " + exchange.getRequestURI().getRawPath()
                    + " webhook-id=" + orDash(headers.getFirst("webhook-id"))
                    + " tenant=" + orDash(headers.getFirst("sluice-tenant"))
                    + " source=" + orDash(headers.getFirst("sluice-source"))
                    + " attempt=" + orDash(headers.getFirst("sluice-attempt"))
                    + " " + length + " bytes " + signature + " -> " + answer;
            exchange.sendResponseHeaders(answer, -1);
        }
        // printed once the answer is sent: a line seen means the sender has its answer
        out.println(line);
        out.flush();
    }

    /** {@code verified}, {@code bad (reason)}, {@code unsigned} or {@code unchecked}. */
    static String signature(Headers headers, byte[] body, Verifier verifier) {
        String value = headers.getFirst("webhook-signature");
        if (value == null || value.isBlank()) {
            return "unsigned";
        }
        if (verifier == null) {
            return "unchecked";
        }
        VerifyOutcome outcome = verifier.verify(headers::getFirst, body, System.currentTimeMillis() / 1000);
        return outcome == VerifyOutcome.OK ? "verified" : "bad (" + outcome.reason() + ")";
    }

    static Verifier verifier(String secret) {
        return Verifiers.create(new VerifySpec(Verifiers.STANDARD_WEBHOOKS, List.of(secret),
                Verifiers.DEFAULT_TOLERANCE_SECONDS, null, null, null, null), "--secret");
    }

    private HostPort listenAddress(CommandLine cli) {
        try {
            return HostPort.parse(listen);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(cli, "--listen must be HOST:PORT (e.g. " + DEFAULT_LISTEN + "): "
                    + e.getMessage() + ", got \"" + listen + "\"");
        }
    }

    static Duration parseDelay(CommandLine cli, String text) {
        Matcher m = DURATION.matcher(text);
        if (!m.matches()) {
            throw new CommandLine.ParameterException(cli, "--delay must be a whole number of ms or s, e.g. 50ms or 2s, got \""
                    + text + "\"");
        }
        long n = Long.parseLong(m.group(1));
        return m.group(2).equals("s") ? Duration.ofSeconds(n) : Duration.ofMillis(n);
    }

    private static String hostForUrl(String host) {
        return host.contains(":") ? "[" + host + "]" : host;
    }

    private static String orDash(String value) {
        return value == null || value.isEmpty() ? "-" : value;
    }
}
