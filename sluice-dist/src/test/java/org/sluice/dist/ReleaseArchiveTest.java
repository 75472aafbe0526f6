package org.sluice.dist;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The release archive as a user gets it: {@code mvn package} builds
 * {@code target/sluice-VERSION.tar.gz}, these tests unpack it with {@code tar} into a
 * temporary directory and run {@code bin/sluice} from there as real processes, on the JDK
 * that runs the tests (through {@code JAVA_HOME}). They run in the {@code integration-test}
 * phase, after {@code package} (see this module's pom).
 */
class ReleaseArchiveTest {

    static final Path ARCHIVE = Paths.get(System.getProperty("sluice.archive", "target/sluice.tar.gz"));
    static final String ROOT = System.getProperty("sluice.archive.root", "sluice");

    /** What the example's "${NAME}" references need, as /etc/sluice/sluice.env would give them. */
    static final Map<String, String> SECRETS = Map.of(
            "GITHUB_WEBHOOK_SECRET", "gh-test-secret",
            "STRIPE_WEBHOOK_SECRET", "whsec_test");

    static final Duration PROCESS_TIMEOUT = Duration.ofSeconds(90);

    @TempDir
    static Path unpacked;

    static Path home;

    @TempDir
    Path work;

    @BeforeAll
    static void unpack() throws Exception {
        assertThat(ARCHIVE).as("the archive built by package").isRegularFile();
        Result tar = run(unpacked, Map.of(), "tar", "-xzf", ARCHIVE.toString(), "-C", unpacked.toString());
        assertThat(tar.code).as("tar -xzf: %s", tar.stderr).isZero();
        home = unpacked.resolve(ROOT);
    }

    @Test
    void theArchiveHoldsTheLauncherTheJarTheExampleTheUnitAndTheDocs() throws Exception {
        for (String file : List.of("bin/sluice", "lib/sluice.jar", "config/sluice.example.yaml",
                "deploy/sluice.service", "deploy/sluice.sysusers", "README.md",
                "docs/operations.md", "docs/configuration.md")) {
            assertThat(home.resolve(file)).as(file).isRegularFile();
        }
        // the modes as stored in the archive, whatever this user's umask does on extraction
        Result listing = run(unpacked, Map.of(), "tar", "-tvzf", ARCHIVE.toString());
        assertThat(listing.code).isZero();
        assertThat(modeOf(listing.stdout, ROOT + "/bin/sluice")).isEqualTo("-rwxr-xr-x");
        assertThat(modeOf(listing.stdout, ROOT + "/lib/sluice.jar")).isEqualTo("-rw-r--r--");
        assertThat(modeOf(listing.stdout, ROOT + "/deploy/sluice.service")).isEqualTo("-rw-r--r--");
        assertThat(Files.isExecutable(home.resolve("bin/sluice"))).isTrue();
    }

    @Test
    void theArchiveCarriesTheLicenseAndEveryBundledLibraryWithItsLicense() throws Exception {
        assertThat(Files.readString(home.resolve("LICENSE"))).contains("Apache License", "Version 2.0, January 2004");
        assertThat(Files.readString(home.resolve("NOTICE"))).contains("Sluice");
        String thirdParty = Files.readString(home.resolve("THIRD-PARTY.txt"));
        // every library shaded into lib/sluice.jar names itself in META-INF/maven/GROUP/ARTIFACT/
        List<String> bundled = new ArrayList<>();
        try (ZipFile jar = new ZipFile(home.resolve("lib/sluice.jar").toFile())) {
            jar.stream().map(ZipEntry::getName).map(POM_PROPERTIES::matcher).filter(Matcher::matches)
                    .filter(m -> !m.group(1).equals("org.sluice"))
                    .forEach(m -> bundled.add(m.group(1) + ":" + m.group(2) + ":"));
        }
        assertThat(bundled).as("libraries inside lib/sluice.jar").hasSizeGreaterThan(20);
        for (String found : bundled) {
            String library = SHADED_BY_A_DEPENDENCY.getOrDefault(found, found);
            Matcher line = Pattern.compile("^\\s*(\\(.+\\)) .*\\(" + Pattern.quote(library) + "[^ ]+ - ", Pattern.MULTILINE)
                    .matcher(thirdParty);
            assertThat(line.find()).as("%s with its license in THIRD-PARTY.txt", library).isTrue();
            assertThat(line.group(1)).as(library).doesNotContain("Unknown license");
        }
    }

    /**
     * Libraries a dependency carries inside its own jar, relocated (Netty's copy of JCTools
     * under io.netty.util.internal.shaded): they come under that dependency's license and
     * notices, so its line in THIRD-PARTY.txt is the one looked for.
     */
    static final Map<String, String> SHADED_BY_A_DEPENDENCY = Map.of(
            "org.jctools:jctools-core:", "io.netty:netty-common:",
            "org.jctools:jctools-core-jdk11:", "io.netty:netty-common:");

    static final Pattern POM_PROPERTIES = Pattern.compile("META-INF/maven/([^/]+)/([^/]+)/pom\\.properties");

    @Test
    void theExampleConfigPassesCheckConfig() throws Exception {
        Result check = run(home, SECRETS, "bin/sluice", "check-config", "config/sluice.example.yaml");
        assertThat(check.code).as("stderr: %s", check.stderr).isZero();
        assertThat(check.stdout).contains("config/sluice.example.yaml: ok");
    }

    @Test
    void theExampleConfigNamesAMissingSecret() throws Exception {
        Result check = run(home, Map.of("STRIPE_WEBHOOK_SECRET", "whsec_test"),
                "bin/sluice", "check-config", "config/sluice.example.yaml");
        assertThat(check.code).isEqualTo(1);
        assertThat(check.stderr).contains("sources.github-acme.verify.secrets[0] uses ${GITHUB_WEBHOOK_SECRET}, which is not set");
    }

    @Test
    void theLauncherRunsThroughASymbolicLinkFromAnyDirectory() throws Exception {
        // a relative link to a link, as /usr/local/bin/sluice -> ../../../opt/sluice/bin/sluice would be;
        // both in the unpacked tree, so that removing the temporary directories follows no link out
        Path links = Files.createDirectories(unpacked.resolve("usr/local/bin"));
        Files.createSymbolicLink(links.resolve("sluice-abs"), home.resolve("bin/sluice"));
        Path link = Files.createSymbolicLink(links.resolve("sluice"), Paths.get("sluice-abs"));
        Path elsewhere = Files.createDirectories(work.resolve("elsewhere"));
        Result version = run(elsewhere, Map.of(), link.toString(), "version");
        assertThat(version.code).as("stderr: %s", version.stderr).isZero();
        assertThat(version.stdout.strip()).matches("sluice \\S+").isNotEqualTo("sluice dev");
    }

    @Test
    void theExampleServesFromTheUnpackedArchiveAndStopsOnSigterm() throws Exception {
        Path data = work.resolve("data");
        String example = Files.readString(home.resolve("config/sluice.example.yaml"));
        String config = replaceOnce(example, "data_dir: /var/lib/sluice", "data_dir: " + data);
        config = replaceOnce(config, "listen: \"0.0.0.0:8080\"", "listen: \"127.0.0.1:0\"");
        config = replaceOnce(config, "listen: \"127.0.0.1:9090\"", "listen: \"127.0.0.1:0\"");
        Path configFile = Files.writeString(work.resolve("sluice.yaml"), config);

        Path out = work.resolve("serve.out");
        Path err = work.resolve("serve.err");
        Process serve = processBuilder(work, SECRETS, home.resolve("bin/sluice").toString(),
                "serve", "--config", configFile.toString())
                .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        try {
            Matcher serving = awaitServingLine(serve, out, err);
            URI ingest = URI.create("http://127.0.0.1:" + serving.group(1));
            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

            awaitHealthy(http, ingest.resolve("/healthz"), serve, err);

            String body = "{\"zen\":\"Keep it logically awesome.\",\"hook_id\":1}";
            HttpResponse<String> hook = http.send(HttpRequest.newBuilder(ingest.resolve("/hooks/github-acme"))
                            .header("Content-Type", "application/json")
                            .header("X-Hub-Signature-256", "sha256=" + hmacSha256Hex(SECRETS.get("GITHUB_WEBHOOK_SECRET"), body))
                            .header("X-GitHub-Delivery", "delivery-1")
                            .timeout(Duration.ofSeconds(30))
                            .POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(hook.statusCode()).as("body: %s", hook.body()).isEqualTo(202);
            assertThat(hook.body()).contains("\"status\":\"accepted\"");

            serve.destroy(); // SIGTERM, to the JVM itself: the launcher execs it
            assertThat(serve.waitFor(PROCESS_TIMEOUT.toSeconds(), TimeUnit.SECONDS)).as("stopped on SIGTERM").isTrue();
            // the JVM's exit status after SIGTERM; the unit lists it in SuccessExitStatus=
            assertThat(serve.exitValue()).as("stderr: %s", Files.readString(err)).isEqualTo(143);
            assertThat(Files.readString(out)).contains("sluice: stopped");
            assertThat(data).isDirectory();
        } finally {
            serve.destroyForcibly();
        }
    }

    @Test
    void theSystemdUnitPassesSystemdAnalyzeVerify() throws Exception {
        assumeTrue(onPath("systemd-analyze"),
                "SKIPPED LOUDLY: systemd-analyze is not on PATH, so deploy/sluice.service was not verified");
        // verify also checks that ExecStart= names an executable: point it at the unpacked launcher
        String unit = Files.readString(home.resolve("deploy/sluice.service"));
        Path copy = Files.writeString(work.resolve("sluice.service"),
                replaceOnce(unit, "ExecStart=/opt/sluice/bin/sluice ", "ExecStart=" + home.resolve("bin/sluice") + " "));
        Result verify = run(work, Map.of(), "systemd-analyze", "verify", copy.toString());
        assertThat(verify.code).as("stderr: %s", verify.stderr).isZero();
        // verify exits 0 on an unknown setting or value, and only warns: any warning fails here
        assertThat(verify.stderr + verify.stdout).isEmpty();
    }

    /** Issue 46, point 14: the unit hid nothing of other processes' /proc entries. */
    @Test
    void theSystemdUnitHidesOtherProcessesAndTheKernelsProcFiles() throws Exception {
        List<String> lines = Files.readAllLines(home.resolve("deploy/sluice.service"), UTF_8);
        assertThat(lines).as("deploy/sluice.service").contains("ProtectProc=invisible", "ProcSubset=pid");
    }

    // --- helpers ------------------------------------------------------------------------

    record Result(int code, String stdout, String stderr) {}

    static ProcessBuilder processBuilder(Path dir, Map<String, String> env, String... command) {
        ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile());
        pb.environment().keySet().removeIf(k -> k.startsWith("SLUICE_") || SECRETS.containsKey(k));
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        pb.environment().putAll(env);
        return pb;
    }

    static Result run(Path dir, Map<String, String> env, String... command) throws Exception {
        Path out = Files.createTempFile("sluice-dist", ".out");
        Path err = Files.createTempFile("sluice-dist", ".err");
        try {
            Process p = processBuilder(dir, env, command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            if (!p.waitFor(PROCESS_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError(String.join(" ", command) + " did not end within " + PROCESS_TIMEOUT);
            }
            return new Result(p.exitValue(), Files.readString(out), Files.readString(err));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    static final Pattern SERVING = Pattern.compile("sluice: serving on /127\\.0\\.0\\.1:(\\d+) \\(admin /127\\.0\\.0\\.1:(\\d+)\\)");

    /** The "serving on" line, with the ingest port the OS chose; fails if the process ends first. */
    static Matcher awaitServingLine(Process serve, Path out, Path err) throws Exception {
        long deadline = System.nanoTime() + PROCESS_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            Matcher m = SERVING.matcher(Files.readString(out));
            if (m.find()) {
                return m;
            }
            if (!serve.isAlive()) {
                throw new AssertionError("serve exited with " + serve.exitValue() + ": " + Files.readString(err));
            }
            Thread.sleep(100);
        }
        throw new AssertionError("no 'serving on' line within " + PROCESS_TIMEOUT + ": " + Files.readString(err));
    }

    static void awaitHealthy(HttpClient http, URI healthz, Process serve, Path err) throws Exception {
        long deadline = System.nanoTime() + PROCESS_TIMEOUT.toNanos();
        int last = -1;
        while (System.nanoTime() < deadline && serve.isAlive()) {
            try {
                last = http.send(HttpRequest.newBuilder(healthz).timeout(Duration.ofSeconds(10)).build(),
                        HttpResponse.BodyHandlers.discarding()).statusCode();
                if (last == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            Thread.sleep(100);
        }
        throw new AssertionError("GET /healthz never answered 200 (last " + last + "): " + Files.readString(err));
    }

    static String replaceOnce(String text, String from, String to) {
        int at = text.indexOf(from);
        assertThat(at).as("'%s' in the file", from).isNotNegative();
        assertThat(text.indexOf(from, at + 1)).as("'%s' only once", from).isNegative();
        return text.substring(0, at) + to + text.substring(at + from.length());
    }

    /** The mode column of one entry in {@code tar -tv} output. */
    static String modeOf(String listing, String entry) {
        List<String> modes = new ArrayList<>();
        for (String line : listing.split("\n")) {
            String[] cols = line.trim().split("\\s+");
            if (cols.length >= 6 && cols[cols.length - 1].equals(entry)) {
                modes.add(cols[0]);
            }
        }
        assertThat(modes).as("%s in the archive", entry).hasSize(1);
        return modes.get(0);
    }

    static boolean onPath(String program) {
        String path = System.getenv("PATH");
        if (path == null) {
            return false;
        }
        for (String dir : path.split(":")) {
            if (!dir.isEmpty() && Files.isExecutable(Paths.get(dir, program))) {
                return true;
            }
        }
        return false;
    }

    static String hmacSha256Hex(String secret, String body) throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(secret.getBytes(UTF_8), "HmacSHA256"));
        return HexFormat.of().formatHex(mac.doFinal(body.getBytes(UTF_8)));
    }
}
