package org.sluice.edge.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPairGenerator;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.edge.delivery.SigningKey;
import picocli.CommandLine;

class SigningKeyCommandTest {

    @TempDir
    Path dir;

    private record Run(int code, String out, String err) {
    }

    private static Run run(String stdin, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine line = new CommandLine(new SigningKeyCommand(new ByteArrayInputStream(stdin.getBytes(StandardCharsets.US_ASCII))))
                .setOut(new PrintWriter(out)).setErr(new PrintWriter(err));
        int code = line.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    @Test
    void aNewKeyIsItsPrivateThenItsPublicFormAndTheyBelongTogether() {
        Run made = run("");
        assertThat(made.code()).isZero();
        String[] lines = made.out().strip().split("\\R");
        assertThat(lines).hasSize(2);
        assertThat(lines[0]).startsWith("whsk_");
        assertThat(lines[1]).startsWith("whpk_");
        assertThat(SigningKey.Ed25519.parse("k", lines[0]).publicKey()).isEqualTo(lines[1]);
        assertThat(run(lines[0] + "\n", "--from", "-").out().strip()).isEqualTo(lines[1]);
    }

    @Test
    void thePublicKeyOfAPemFileAsOpensslWritesIt() throws Exception {
        var pair = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
        Path pem = dir.resolve("key.pem");
        Files.writeString(pem, "-----BEGIN PRIVATE KEY-----\n"
                + Base64.getEncoder().encodeToString(pair.getPrivate().getEncoded()) + "\n-----END PRIVATE KEY-----\n");
        Run r = run("", "--from", pem.toString());
        assertThat(r.code()).as(r.err()).isZero();
        byte[] x509 = pair.getPublic().getEncoded();
        assertThat(r.out().strip()).isEqualTo("whpk_" + Base64.getEncoder().encodeToString(
                java.util.Arrays.copyOfRange(x509, x509.length - 32, x509.length)));
    }

    @Test
    void aKeyThatCannotBeReadIsExitOneAndNeverPrinted() {
        Run r = run("whsk_dG9vLXNob3J0LWEta2V5\n", "--from", "-");
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err()).contains("must be whsk_ followed by the base64 of a 32-byte Ed25519 seed")
                .doesNotContain("dG9vLXNob3J0LWEta2V5");
        assertThat(r.out()).isEmpty();
        assertThat(run("", "--from", dir.resolve("missing.pem").toString()).code()).isEqualTo(1);
    }
}
