package org.sluice.edge.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.sluice.core.Clock;
import org.sluice.shm.SharedArena;

/** The host arena's file: owner-only by default, 0660 of {@code rate_limits.host_arena_group}, refusals naming the keys. */
class HostArenaTest {

    private final Path file = SharedArena.defaultFile("sluice-hostarena-" + UUID.randomUUID());
    private final Path probe = SharedArena.defaultFile("sluice-hostarena-probe-" + UUID.randomUUID());

    @AfterEach
    void cleanup() throws Exception {
        Files.deleteIfExists(file);
        Files.deleteIfExists(probe);
    }

    @Test
    void withoutAGroupTheArenaIsThisUsersOnly() throws Exception {
        HostArena.open(file, null, Clock.system()).close();
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file, LinkOption.NOFOLLOW_LINKS)))
                .isEqualTo("rw-------");
    }

    @Test
    void withAGroupTheArenaIs0660OfThatGroup() throws Exception {
        Files.createFile(probe);
        String group = Files.readAttributes(probe, PosixFileAttributes.class).group().getName(); // one we may use
        HostArena.open(file, group, Clock.system()).close();
        PosixFileAttributes attrs = Files.readAttributes(file, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        assertThat(PosixFilePermissions.toString(attrs.permissions())).isEqualTo("rw-rw----");
        assertThat(attrs.group().getName()).isEqualTo(group);
    }

    @Test
    void aPlantedWorldWritableFileFailsTheBootNamingTheKey() throws Exception {
        Files.createFile(file);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-rw-rw-"));
        assertThatThrownBy(() -> HostArena.open(file, null, Clock.system()))
                .hasMessageStartingWith("rate_limits.host_arena " + file + " cannot be opened")
                .hasMessageContaining("mode 0666");
    }

    @Test
    void anUnknownGroupFailsTheBootNamingTheKeyAndTheGroup() {
        assertThatThrownBy(() -> HostArena.open(file, "no-such-group-xyz", Clock.system()))
                .hasMessageContaining("rate_limits.host_arena_group no-such-group-xyz")
                .hasMessageContaining("there is no group 'no-such-group-xyz'");
    }
}
