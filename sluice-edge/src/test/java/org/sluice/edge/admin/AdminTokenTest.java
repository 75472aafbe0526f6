package org.sluice.edge.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.edge.config.AdminConfig;

class AdminTokenTest {

    @TempDir
    Path dir;

    private static AdminConfig generated() {
        return AdminConfig.defaults();
    }

    @Test
    void aConfiguredTokenIsUsedAndNoFileIsWritten() {
        AdminToken token = AdminToken.resolve(new AdminConfig(AdminConfig.DEFAULT_LISTEN, "s3cret-token", false), dir);
        assertThat(token.matches("s3cret-token")).isTrue();
        assertThat(token.matches("s3cret-token ")).isFalse();
        assertThat(token.matches("s3cret-toke")).isFalse();
        assertThat(token.matches(null)).isFalse();
        assertThat(token.file()).isEmpty();
        assertThat(token.describe()).isEqualTo("admin token: from admin.token");
        assertThat(Files.exists(dir.resolve("admin.token"))).isFalse();
    }

    @Test
    void withoutOneATokenIsGeneratedIntoTheDataDirWithMode0600AndReusedAtTheNextBoot() throws Exception {
        Path data = dir.resolve("nested/data");
        AdminToken first = AdminToken.resolve(generated(), data);
        Path file = data.resolve("admin.token");
        assertThat(first.file()).contains(file);
        assertThat(first.generated()).isTrue();
        assertThat(first.describe()).contains(file.toString()).contains("generated").contains("0600");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
        String written = Files.readString(file, StandardCharsets.US_ASCII).strip();
        assertThat(written).matches("[A-Za-z0-9_-]{43}");
        assertThat(first.matches(written)).isTrue();
        assertThat(first.toString()).doesNotContain(written);
        try (var files = Files.list(data)) {
            assertThat(files.map(p -> p.getFileName().toString())).containsExactly("admin.token");
        }

        AdminToken second = AdminToken.resolve(generated(), data);
        assertThat(second.generated()).isFalse();
        assertThat(second.matches(written)).isTrue();
        assertThat(second.describe()).isEqualTo("admin token: read from " + file);
    }

    @Test
    void twoGeneratedTokensDiffer() {
        AdminToken a = AdminToken.resolve(generated(), dir.resolve("a"));
        AdminToken b = AdminToken.resolve(generated(), dir.resolve("b"));
        String tokenA = read(dir.resolve("a/admin.token"));
        assertThat(a.matches(tokenA)).isTrue();
        assertThat(b.matches(tokenA)).isFalse();
    }

    @Test
    void processesRacingOnOneDataDirAllEndUpWithTheSameToken() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<AdminToken>> futures = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                futures.add(pool.submit((Callable<AdminToken>) () -> AdminToken.resolve(generated(), dir)));
            }
            String onDisk = null;
            int generatedCount = 0;
            for (Future<AdminToken> f : futures) {
                AdminToken t = f.get();
                onDisk = read(dir.resolve("admin.token"));
                assertThat(t.matches(onDisk)).isTrue();
                generatedCount += t.generated() ? 1 : 0;
            }
            assertThat(generatedCount).isEqualTo(1);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aTokenFileOthersCanReadFailsTheBoot() throws Exception {
        Path file = dir.resolve("admin.token");
        Files.writeString(file, "leaky\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
        assertThatThrownBy(() -> AdminToken.resolve(generated(), dir))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("admin token file " + file + " has mode rw-r--r--; it must be rw------- (0600)");
    }

    @Test
    void anEmptyTokenFileFailsTheBoot() throws Exception {
        Path file = dir.resolve("admin.token");
        Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        assertThatThrownBy(() -> AdminToken.resolve(generated(), dir))
                .hasMessage("admin token file " + file + " is empty; delete it to have a new token generated");
    }

    @Test
    void aHandWrittenPrivateTokenFileIsUsed() throws Exception {
        Path file = dir.resolve("admin.token");
        Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.writeString(file, "  chosen-by-hand \n");
        assertThat(AdminToken.resolve(generated(), dir).matches("chosen-by-hand")).isTrue();
    }

    @Test
    void anEmptyDirectTokenIsRefused() {
        assertThatThrownBy(() -> AdminToken.of("")).hasMessage("token must not be empty");
    }

    private static String read(Path file) {
        try {
            return Files.readString(file).strip();
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
    }
}
