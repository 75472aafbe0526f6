package org.sluice.edge.cli;

import io.netty.util.ResourceLeakDetector;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.function.UnaryOperator;
import org.sluice.edge.config.ConfigException;
import org.sluice.edge.config.ConfigLoader;
import org.sluice.edge.config.SluiceConfig;
import org.sluice.edge.server.EdgeServer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * The {@code sluice} command line: {@code serve [--config FILE]}, {@code check-config FILE},
 * {@code version}. The shaded jar's main class; {@code ./sluice} at the repository root runs it.
 *
 * <p>Exit codes: 0 success; 1 a configuration that does not load (every message printed)
 * or a server that cannot start; 2 a usage error.
 */
@Command(name = "sluice", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
        description = "Webhook ingest edge built around admission control.",
        subcommands = {Main.Serve.class, Main.CheckConfig.class, Main.VersionCommand.class, ReceiveCommand.class,
                DoctorCommand.class,
                LimitsCommand.class, TailCommand.class, LoadCommand.class,
                DeliveryCommands.Destinations.class, DeliveryCommands.Dead.class, DeliveryCommands.Redeliver.class,
                DeliveryCommands.Replay.class, SigningKeyCommand.class})
public final class Main implements Callable<Integer> {

    @Spec
    CommandLine.Model.CommandSpec spec;

    /** Netty's own system property for its buffer-leak detector's level. */
    static final String LEAK_DETECTION_LEVEL = "io.netty.leakDetection.level";
    /** Netty's older switch for the same detector. */
    static final String NO_LEAK_DETECTION = "io.netty.noResourceLeakDetection";

    public static void main(String[] args) {
        processLeakDetection(System.getProperties()).ifPresent(ResourceLeakDetector::setLevel);
        System.exit(run(args));
    }

    /**
     * The level of Netty's buffer-leak detector for a {@code sluice} process: off, unless
     * the JVM was started with {@value #LEAK_DETECTION_LEVEL} (or {@value #NO_LEAK_DETECTION})
     * set, which is then left to Netty. Netty's default samples one buffer in 128 and records
     * a stack trace for each: 1.0% of a refusing server's CPU samples and 1.7% of an
     * accepting one's (docs/bench-notes/edge-2026-12-05-to-06.md, "Netty's leak detector off in
     * the sluice process"). It is a diagnosis tool, so it is off in the process and on where
     * it helps: the tests that run
     * servers in the test JVM keep Netty's default, and the fuzz targets run it at
     * {@code PARANOID}. Only the process's entry point applies it; {@link #run} does not.
     */
    static Optional<ResourceLeakDetector.Level> processLeakDetection(Properties system) {
        if (system.getProperty(LEAK_DETECTION_LEVEL) != null || system.getProperty(NO_LEAK_DETECTION) != null) {
            return Optional.empty();
        }
        return Optional.of(ResourceLeakDetector.Level.DISABLED);
    }

    /** Runs the command line and returns its exit code (for tests: no {@code System.exit}). */
    public static int run(String... args) {
        return new CommandLine(new Main()).execute(args);
    }

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getOut());
        return 2;
    }

    /** Prints a configuration's problems, one a line, and returns exit code 1. */
    static int printProblems(PrintWriter err, List<String> problems) {
        for (String problem : problems) {
            err.println(problem);
        }
        err.flush();
        return 1;
    }

    /** {@code sluice version}. */
    @Command(name = "version", description = "Print the version.")
    static final class VersionCommand implements Callable<Integer> {
        @Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            spec.commandLine().getOut().println("sluice " + Version.current());
            return 0;
        }
    }

    /** {@code sluice check-config FILE}: exit 0, or 1 printing every problem. */
    @Command(name = "check-config", description = "Check a configuration file; print every problem.")
    static final class CheckConfig implements Callable<Integer> {
        @Spec
        CommandLine.Model.CommandSpec spec;

        @Parameters(index = "0", paramLabel = "FILE", description = "the YAML configuration to check")
        Path file;

        @Override
        public Integer call() {
            List<String> problems = ConfigLoader.check(file);
            if (problems.isEmpty()) {
                spec.commandLine().getOut().println(file + ": ok");
                return 0;
            }
            return printProblems(spec.commandLine().getErr(), problems);
        }
    }

    /** {@code sluice serve [--config FILE]}: runs until SIGTERM or SIGINT, then stops gracefully. */
    @Command(name = "serve", description = "Run the ingest server (the embedded default config without --config).")
    static final class Serve implements Callable<Integer> {
        @Spec
        CommandLine.Model.CommandSpec spec;

        @Option(names = {"-c", "--config"}, paramLabel = "FILE", description = "YAML configuration file")
        Path config;

        @Option(names = "--forward-to", paramLabel = "URL",
                description = "also deliver every source's hooks to this http(s) URL, signed (repeatable; e.g."
                        + " http://127.0.0.1:3000/ for sluice receive)")
        List<String> forwardTo = List.of();

        @Option(names = "--forward-secret", paramLabel = "whsec_...",
                description = "the Standard Webhooks secret --forward-to signs with (default: a new one, printed)")
        String forwardSecret;

        @Override
        public Integer call() throws InterruptedException {
            CommandLine cli = spec.commandLine();
            Forwarding forwarding = forwarding(cli);
            UnaryOperator<Object> edit = forwarding == null ? UnaryOperator.identity() : forwarding;
            SluiceConfig loaded;
            try {
                loaded = config == null ? ConfigLoader.loadDefault(System.getenv(), edit)
                        : ConfigLoader.load(config, System.getenv(), edit);
            } catch (ConfigException e) {
                return printProblems(spec.commandLine().getErr(), e.errors());
            }
            if (forwarding != null && forwarding.problem() != null) {
                cli.getErr().println("sluice: " + forwarding.problem());
                cli.getErr().flush();
                return 1;
            }
            LogFormat.apply(loaded.logging());
            EdgeServer server;
            try {
                server = EdgeServer.builder(loaded).start();
            } catch (RuntimeException e) {
                spec.commandLine().getErr().println("sluice: cannot start: " + e.getMessage());
                spec.commandLine().getErr().flush();
                return 1;
            }
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            UntilStopped stopped = new UntilStopped("sluice-shutdown", () -> {
                try {
                    server.close();
                } catch (RuntimeException | Error e) {
                    err.println("sluice: stopping failed: " + e);
                    e.printStackTrace(err);
                    err.flush();
                }
                out.println("sluice: stopped");
                out.flush();
            });
            if (forwarding != null) {
                for (int i = 0; i < forwardTo.size(); i++) {
                    out.println("sluice: forwarding every source's hooks to " + forwardTo.get(i) + " (destination "
                            + forwarding.names().get(i) + ")");
                }
                if (forwardSecret == null) {
                    out.println("sluice: signing them with a new secret; check them with: sluice receive --secret "
                            + forwarding.secret());
                }
            }
            spec.commandLine().getOut().println("sluice: serving on " + server.ingestAddress() + " (admin "
                    + server.adminAddress() + ")");
            spec.commandLine().getOut().flush();
            stopped.await();
            return 0;
        }

        /** The tree edit of {@code --forward-to}, or null without it; a bad URL or secret is a usage error. */
        private Forwarding forwarding(CommandLine cli) {
            if (forwardTo.isEmpty()) {
                if (forwardSecret != null) {
                    throw new CommandLine.ParameterException(cli, "--forward-secret needs --forward-to URL");
                }
                return null;
            }
            List<URI> urls = new ArrayList<>();
            for (String text : forwardTo) {
                URI url = Forwarding.parseUrl(text);
                if (url == null) {
                    throw new CommandLine.ParameterException(cli, "--forward-to must be an http:// or https:// URL with a"
                            + " host, e.g. http://127.0.0.1:3000/, got \"" + text + "\"");
                }
                urls.add(url);
            }
            String secret = forwardSecret == null ? WebhookSecrets.generate()
                    : WebhookSecrets.check(cli, "--forward-secret", forwardSecret);
            return new Forwarding(urls, secret);
        }
    }

    /** The version from the jar's manifest, or {@code dev} when run from classes. */
    static final class Version implements CommandLine.IVersionProvider {
        static String current() {
            String v = Main.class.getPackage().getImplementationVersion();
            return v == null ? "dev" : v;
        }

        @Override
        public String[] getVersion() {
            return new String[] {"sluice " + current()};
        }
    }
}
