package org.sluice.edge.admin;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.sluice.edge.config.AdminConfig;

/**
 * The bearer token of the admin API's {@code /v1} routes.
 *
 * <p>It comes from {@code admin.token} when that is set. Otherwise it lives in
 * {@code <data_dir>/admin.token}: read when the file exists, else generated at this boot
 * (32 random bytes, base64url) and written there with mode {@code 0600}, put in place
 * atomically so that a second process racing on the same dir reads the first one's
 * token instead of writing its own. A token file readable by others fails the boot: the
 * token must be assumed leaked.
 *
 * <p>{@link #matches} compares in constant time: both sides are hashed with SHA-256 and
 * the digests compared with {@link MessageDigest#isEqual}, so neither the content nor the
 * length of the real token shows in the time a wrong guess takes.
 */
public final class AdminToken {

    /** The token file's name under {@code node.data_dir}. */
    public static final String FILE_NAME = "admin.token";

    private static final Set<PosixFilePermission> OWNER_ONLY =
            EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);
    private static final int RANDOM_BYTES = 32;

    private final byte[] digest;
    private final Path file;
    private final boolean generated;

    private AdminToken(String token, Path file, boolean generated) {
        this.digest = sha256(token);
        this.file = file;
        this.generated = generated;
    }

    /** A token given directly (tests, embedders). */
    public static AdminToken of(String token) {
        if (Objects.requireNonNull(token, "token").isEmpty()) {
            throw new IllegalArgumentException("token must not be empty");
        }
        return new AdminToken(token, null, false);
    }

    /**
     * The token for this boot: {@code admin.token} when set, else the one in
     * {@code <dataDir>/admin.token}, generated now when the file does not exist.
     *
     * @throws IllegalStateException naming the file when it cannot be created or read, is
     *     empty, or is readable or writable by anyone but its owner (the boot fails)
     */
    public static AdminToken resolve(AdminConfig admin, Path dataDir) {
        if (admin.hasToken()) {
            return new AdminToken(admin.token(), null, false);
        }
        Path file = dataDir.resolve(FILE_NAME);
        try {
            Files.createDirectories(dataDir);
            if (Files.exists(file)) {
                return new AdminToken(readExisting(file), file, false);
            }
            String token = newToken();
            // Written whole into a private temp file, then hard-linked into place: the link
            // either appears with the full token or fails because another process linked
            // first, so no reader ever sees a half-written or foreign-readable token file.
            Path temp = Files.createTempFile(dataDir, FILE_NAME + ".", ".tmp",
                    PosixFilePermissions.asFileAttribute(OWNER_ONLY));
            try {
                Files.writeString(temp, token + "\n", StandardCharsets.US_ASCII);
                Files.createLink(file, temp);
                return new AdminToken(token, file, true);
            } catch (FileAlreadyExistsException raced) {
                return new AdminToken(readExisting(file), file, false);
            } finally {
                Files.deleteIfExists(temp);
            }
        } catch (IOException e) {
            throw new IllegalStateException("admin token file " + file + " cannot be created or read: " + e, e);
        }
    }

    private static String readExisting(Path file) throws IOException {
        Set<PosixFilePermission> mode = Files.getPosixFilePermissions(file);
        if (!OWNER_ONLY.containsAll(mode)) {
            throw new IllegalStateException("admin token file " + file + " has mode "
                    + PosixFilePermissions.toString(mode) + "; it must be rw------- (0600): "
                    + "delete it to have a new token generated, or chmod 600 it if it never left this host");
        }
        String token = Files.readString(file, StandardCharsets.UTF_8).strip();
        if (token.isEmpty()) {
            throw new IllegalStateException("admin token file " + file + " is empty; delete it to have a new token generated");
        }
        return token;
    }

    private static String newToken() {
        byte[] raw = new byte[RANDOM_BYTES];
        new SecureRandom().nextBytes(raw);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(raw);
    }

    /** True when {@code presented} is the token; constant time. Null never matches. */
    public boolean matches(String presented) {
        if (presented == null) {
            return false;
        }
        return MessageDigest.isEqual(digest, sha256(presented));
    }

    /** The token file, when the token lives in one (generated now or at an earlier boot). */
    public Optional<Path> file() {
        return Optional.ofNullable(file);
    }

    /** True when this boot generated the token. */
    public boolean generated() {
        return generated;
    }

    /** For the boot log; never the token itself. */
    public String describe() {
        if (file == null) {
            return "admin token: from admin.token";
        }
        return generated
                ? "admin token: generated into " + file + " (mode 0600); the CLI reads it from there"
                : "admin token: read from " + file;
    }

    private static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    @Override
    public String toString() {
        return "AdminToken[" + describe() + "]";
    }
}
