package org.sluice.shm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.GroupPrincipal;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Who may plant or read an arena file (issue: the file could be squatted or read by
 * another local user). A file at the path that this process did not make with
 * owner-only permissions (or the configured group's) is refused with its path, owner
 * and mode; a symbolic link is never followed; a new file is 0600, or 0660 with a group.
 */
class ArenaFileTrustTest {

    private final ShmFiles files = new ShmFiles();

    @AfterEach
    void cleanup() throws Exception {
        files.close();
    }

    @Test
    void aPreCreatedWorldWritableFileIsRefusedNotAdopted() throws Exception {
        Path file = files.fresh();
        Files.createFile(file);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-rw-rw-")); // past the umask
        String owner = Files.getOwner(file).getName();

        assertThatThrownBy(() -> SharedArena.create(file, 1 << 20))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(file.toString())
                .hasMessageContaining("owner " + owner)
                .hasMessageContaining("mode 0666");
        assertThatThrownBy(() -> SharedArena.attach(file)).hasMessageContaining("mode 0666");
        assertThat(Files.size(file)).as("left untouched").isZero();
    }

    @Test
    void aSymbolicLinkAtThePathIsNeverFollowed() throws Exception {
        Path target = files.fresh();
        Files.writeString(target, "precious\n");
        Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rw-------"));
        Path link = files.fresh();
        Files.createSymbolicLink(link, target);

        assertThatThrownBy(() -> SharedArena.create(link, 1 << 20))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(link.toString())
                .hasMessageContaining("symbolic link");
        assertThatThrownBy(() -> SharedArena.attach(link)).hasMessageContaining("symbolic link");
        assertThat(Files.readString(target)).isEqualTo("precious\n");
    }

    @Test
    void aDanglingSymbolicLinkDoesNotMakeAFileWhereItPoints() throws Exception {
        Path target = files.fresh(); // does not exist
        Path link = files.fresh();
        Files.createSymbolicLink(link, target);

        assertThatThrownBy(() -> SharedArena.create(link, 1 << 20)).hasMessageContaining("symbolic link");
        assertThat(Files.exists(target, LinkOption.NOFOLLOW_LINKS)).isFalse();
    }

    @Test
    void aNewArenaFileIsReadableAndWritableByItsOwnerOnly() throws Exception {
        Path file = files.fresh();
        try (SharedArena a = SharedArena.create(file, 1 << 20)) {
            assertThat(a.rate("x", 1, Duration.ofSeconds(1)).allow("k")).isTrue();
        }
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
        try (SharedArena again = SharedArena.attach(file)) {
            assertThat(again.sizeBytes()).isEqualTo(1 << 20);
        }
    }

    @Test
    void anArenaOthersCanReadIsRefusedBecauseItsHeaderHoldsTheHashKey() throws Exception {
        Path file = files.fresh();
        SharedArena.create(file, 1 << 20).close();
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
        assertThatThrownBy(() -> SharedArena.attach(file))
                .hasMessageContaining(file.toString()).hasMessageContaining("mode 0644");
    }

    @Test
    void groupBitsWithoutAConfiguredGroupAreRefused() throws Exception {
        Path file = files.fresh();
        SharedArena.create(file, 1 << 20).close();
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-rw----"));
        assertThatThrownBy(() -> SharedArena.attach(file)).hasMessageContaining("mode 0660");
    }

    @Test
    void aConfiguredGroupMakesTheFile0660OfThatGroup() throws Exception {
        String group = primaryGroup();
        Path file = files.fresh();
        try (SharedArena a = SharedArena.create(file, 1 << 20, group)) {
            assertThat(a.rate("x", 1, Duration.ofSeconds(1)).allow("k")).isTrue();
        }
        PosixFileAttributes attrs = Files.readAttributes(file, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        assertThat(PosixFilePermissions.toString(attrs.permissions())).isEqualTo("rw-rw----");
        assertThat(attrs.group().getName()).isEqualTo(group);
        SharedArena.attach(file, group).close();
    }

    @Test
    void anUnknownGroupIsRefusedNamingIt() {
        Path file = files.fresh();
        assertThatThrownBy(() -> SharedArena.create(file, 1 << 20, "no-such-group-xyz"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no-such-group-xyz");
        assertThat(Files.exists(file, LinkOption.NOFOLLOW_LINKS)).isFalse();
    }

    @Test
    void anotherUsersFileIsRefusedUnlessItBelongsToTheConfiguredGroup() throws Exception {
        assumeTrue(isRoot(), "only root can give a file to another user");
        Path file = files.fresh();
        SharedArena.create(file, 1 << 20, "daemon").close();
        PosixFileAttributeView view = Files.getFileAttributeView(file, PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS);
        UserPrincipal nobody = file.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("nobody");
        view.setOwner(nobody);

        assertThatThrownBy(() -> SharedArena.attach(file))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(file.toString()).hasMessageContaining("owner nobody").hasMessageContaining("mode 0660");
        SharedArena.attach(file, "daemon").close(); // the group the operator chose to trust

        GroupPrincipal other = file.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByGroupName("bin");
        view.setGroup(other);
        assertThatThrownBy(() -> SharedArena.attach(file, "daemon")).hasMessageContaining("owner nobody");
    }

    @Test
    void aCarveOffsetNearTheTopOfLongIsDamagedNotWrappedAround() {
        try (SharedArena a = SharedArena.create(files.fresh(), 1 << 20)) {
            a.gcraTable("t", 8);
            ByteBuffer map = a.mapping();
            // offset + carve bytes overflows a long and would pass "offset + bytes > size"
            map.putLong(ArenaLayout.entryAt(0) + ArenaLayout.E_OFFSET, Long.MAX_VALUE & ~63L);
            assertThatThrownBy(() -> a.gcraTable("t", 8))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("is damaged").hasMessageContaining(String.valueOf(Long.MAX_VALUE & ~63L));
        }
    }

    private static boolean isRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    /** The group a new file of this process gets: one the process may give its files. */
    private String primaryGroup() throws Exception {
        Path probe = files.fresh();
        Files.createFile(probe);
        return Files.readAttributes(probe, PosixFileAttributes.class).group().getName();
    }
}
