package org.sluice.edge.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.sluice.edge.delivery.SettingsException;
import org.sluice.edge.delivery.SigningKey;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code sluice signing-key}: an Ed25519 key for a destination's {@code v1a} signatures.
 * Without {@code --from}, makes a new one and prints two lines, {@code whsk_...} (the private
 * key, for {@code signing.ed25519_key} or a rotation) then {@code whpk_...} (the public key,
 * for receivers). With {@code --from FILE} ({@code -}: standard input) reads a key (a PKCS#8
 * PEM file or a {@code whsk_} line) and prints its public key alone. A key it cannot read is
 * exit 1, described by its length, never printed.
 */
@Command(name = "signing-key", description = "Make an Ed25519 signing key (whsk_ then whpk_), or print the public key"
        + " (whpk_) of one read with --from.")
final class SigningKeyCommand implements Callable<Integer> {

    /** Largest key file read: a PEM Ed25519 key is about 120 bytes. */
    static final int MAX_KEY_FILE_BYTES = 64 * 1024;

    @Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--from", paramLabel = "FILE",
            description = "read the private key from FILE (- for standard input) and print its public key")
    String from;

    private final InputStream stdin;

    SigningKeyCommand() {
        this(System.in);
    }

    SigningKeyCommand(InputStream stdin) {
        this.stdin = stdin;
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        if (from == null) {
            SigningKey.Ed25519 key = SigningKey.Ed25519.generate();
            out.println(key.secret());
            out.println(key.publicKey());
            out.flush();
            return 0;
        }
        PrintWriter err = spec.commandLine().getErr();
        String text;
        try {
            byte[] bytes = from.equals("-") ? stdin.readNBytes(MAX_KEY_FILE_BYTES + 1) : Files.readAllBytes(Path.of(from));
            if (bytes.length > MAX_KEY_FILE_BYTES) {
                err.println("--from " + from + " holds more than " + MAX_KEY_FILE_BYTES + " bytes: not a key file");
                err.flush();
                return 1;
            }
            text = new String(bytes, StandardCharsets.US_ASCII);
        } catch (IOException | RuntimeException e) {
            err.println("--from " + from + " cannot be read: " + e.getClass().getSimpleName());
            err.flush();
            return 1;
        }
        try {
            out.println(SigningKey.Ed25519.fromFile("--from " + from, text).publicKey());
            out.flush();
            return 0;
        } catch (SettingsException bad) {
            bad.errors().forEach(err::println);
            err.flush();
            return 1;
        }
    }
}
