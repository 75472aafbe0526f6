package org.sluice.shm;

import static java.nio.file.LinkOption.NOFOLLOW_LINKS;
import static java.nio.file.StandardOpenOption.CREATE_NEW;
import static java.nio.file.StandardOpenOption.READ;
import static java.nio.file.StandardOpenOption.WRITE;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.GroupPrincipal;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.nio.file.attribute.UserPrincipalNotFoundException;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Opens an arena file without trusting what another local user may have put at its
 * path. The default directory, {@code /dev/shm}, is writable by every user and the file
 * name is predictable, so a file (or a symbolic link) may be there before us; and the
 * header holds the secret key of the key hash, so whoever can read the file can compute
 * colliding keys.
 *
 * <h2>Creating</h2>
 * {@code O_CREAT | O_EXCL} ({@code CREATE_NEW}), which never follows a symbolic link and
 * fails if anything is at the path, with mode 0600; then, through the new file and not a
 * link, the configured group and exactly 0600 or 0660 (whatever the umask). If the path
 * is taken, the file is attached with every check below, never adopted.
 *
 * <h2>Attaching</h2>
 * The path is read without following links ({@code lstat}) and must be a regular file
 * owned by this process's user, or, when a group is configured, of that group; it must
 * grant nothing to others, and nothing to its group unless that group is the configured
 * one. It is then opened with {@code O_NOFOLLOW} and read again: the file identity
 * (device and inode) must be the one checked, and the checks must still pass.
 *
 * <h2>What is left</h2>
 * Java cannot {@code fstat} an open channel, so the opened file is identified by the path
 * read before and after the open. A file swapped in and back out between those two reads
 * would go unseen; that needs the right to rename our own file, which a sticky directory
 * ({@code /dev/shm}, {@code /tmp}) gives only to its owner and root. A directory that
 * others may write and that is not sticky is therefore refused outright. A process
 * creating the file with a group leaves it 0600 of its own primary group for the moment
 * between the create and the change of group; another user attaching in that moment is
 * refused (and can retry).
 */
final class ArenaFile {

    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");
    private static final Set<PosixFilePermission> OWNER_AND_GROUP = PosixFilePermissions.fromString("rw-rw----");
    private static final int OTHERS = 0007;
    private static final int GROUP = 0070;
    private static final int OTHERS_WRITE = 0002;
    private static final int STICKY = 01000;

    private ArenaFile() {
    }

    /** A read-write channel on the arena file at {@code file}, made (when {@code create}) or checked. */
    static FileChannel open(Path file, boolean create, String group) {
        GroupPrincipal trusted = group == null ? null : lookUpGroup(file, group);
        checkDirectory(file);
        if (create) {
            FileChannel made = createNew(file, trusted);
            if (made != null) {
                return made;
            }
        }
        return openExisting(file, trusted);
    }

    private static GroupPrincipal lookUpGroup(Path file, String group) {
        try {
            return file.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByGroupName(group);
        } catch (UserPrincipalNotFoundException e) {
            throw new IllegalArgumentException("shared arena " + file + ": there is no group '" + group + "'", e);
        } catch (IOException | UnsupportedOperationException e) {
            throw new IllegalArgumentException("shared arena " + file + ": cannot look up group '" + group + "': " + e, e);
        }
    }

    /** Refuses a directory where another user could replace our file: writable by others and not sticky. */
    private static void checkDirectory(Path file) {
        Path dir = file.toAbsolutePath().getParent();
        if (dir == null) {
            return;
        }
        int mode;
        try {
            mode = (Integer) Files.getAttribute(dir, "unix:mode");
        } catch (NoSuchFileException e) {
            return; // opening the file reports the missing directory
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            throw new IllegalStateException("shared arena " + file + ": cannot read the mode of its directory " + dir + ": " + e, e);
        }
        if ((mode & OTHERS_WRITE) != 0 && (mode & STICKY) == 0) {
            throw new IllegalStateException("shared arena " + file + ": its directory " + dir + " has mode 0"
                    + Integer.toOctalString(mode & 07777) + ", writable by every user and not sticky, so another user"
                    + " could replace the file; use a directory that only its owner can write, or a sticky one like /dev/shm");
        }
    }

    /** The new file, or null when something is already at the path. */
    private static FileChannel createNew(Path file, GroupPrincipal group) {
        FileChannel channel;
        try {
            channel = FileChannel.open(file, Set.of(CREATE_NEW, READ, WRITE, NOFOLLOW_LINKS),
                    PosixFilePermissions.asFileAttribute(OWNER_ONLY));
        } catch (FileAlreadyExistsException e) {
            return null; // made by another process, or planted: attached with every check
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create shared arena file " + file, e);
        }
        try {
            PosixFileAttributeView view = Files.getFileAttributeView(file, PosixFileAttributeView.class, NOFOLLOW_LINKS);
            if (group != null) {
                view.setGroup(group);
            }
            view.setPermissions(group == null ? OWNER_ONLY : OWNER_AND_GROUP); // exactly, whatever the umask
            return channel;
        } catch (IOException | RuntimeException e) {
            closeQuietly(channel);
            try {
                Files.deleteIfExists(file);
            } catch (IOException ignored) {
                // the message below says what went wrong first
            }
            throw new IllegalStateException("cannot give shared arena file " + file
                    + (group == null ? " mode 0600" : " group '" + group.getName() + "' and mode 0660") + ": " + e
                    + (group == null ? "" : " (is this process's user a member of the group?)"), e);
        }
    }

    private static FileChannel openExisting(Path file, GroupPrincipal group) {
        Map<String, Object> before = attributes(file);
        check(file, before, group);
        FileChannel channel;
        try {
            channel = FileChannel.open(file, READ, WRITE, NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            throw missing(file, e);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open shared arena file " + file, e);
        }
        try {
            Map<String, Object> after = attributes(file);
            if (!Objects.equals(before.get("fileKey"), after.get("fileKey"))) {
                throw new IllegalStateException("shared arena " + file + " was replaced by another file while it was being opened; refusing it");
            }
            check(file, after, group);
            return channel;
        } catch (RuntimeException e) {
            closeQuietly(channel);
            throw e;
        }
    }

    private static Map<String, Object> attributes(Path file) {
        try {
            return Files.readAttributes(file, "unix:*", NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            throw missing(file, e);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the attributes of shared arena file " + file, e);
        }
    }

    private static IllegalStateException missing(Path file, NoSuchFileException e) {
        return new IllegalStateException("no shared arena at " + file + ": the file does not exist (SharedArena.create makes one)", e);
    }

    /** The checks of the class comment, on attributes read without following links. */
    static void check(Path file, Map<String, Object> a, GroupPrincipal group) {
        if (Boolean.TRUE.equals(a.get("isSymbolicLink"))) {
            throw new IllegalStateException("shared arena " + file + " is a symbolic link; refusing to follow it"
                    + " (another user could point it at any file; give the real path)");
        }
        if (!Boolean.TRUE.equals(a.get("isRegularFile"))) {
            throw new IllegalStateException("shared arena " + file + " is not a regular file");
        }
        int mode = (Integer) a.get("mode") & 07777;
        int uid = (Integer) a.get("uid");
        UserPrincipal owner = (UserPrincipal) a.get("owner");
        GroupPrincipal fileGroup = (GroupPrincipal) a.get("group");
        boolean ofTrustedGroup = group != null && group.equals(fileGroup);
        boolean ownerOk = uid == Uid.CURRENT || ofTrustedGroup;
        boolean modeOk = (mode & OTHERS) == 0 && ((mode & GROUP) == 0 || ofTrustedGroup);
        if (!ownerOk || !modeOk) {
            throw new IllegalStateException("shared arena " + file + " is not trusted: owner " + owner.getName()
                    + " (uid " + uid + "), group " + fileGroup.getName() + ", mode 0" + Integer.toOctalString(mode)
                    + "; this process (uid " + Uid.CURRENT + ") accepts only a regular file it owns"
                    + (group == null ? " with mode 0600" : " or of group " + group.getName() + ", with no permissions for others")
                    + ", since another user could have planted it, or can read its hash key"
                    + " (stop the processes using it and remove it, or fix its owner and mode)");
        }
    }

    private static void closeQuietly(FileChannel channel) {
        try {
            channel.close();
        } catch (IOException ignored) {
            // nothing more to do with a channel we are dropping
        }
    }

    /** This process's real user id, read once. */
    private static final class Uid {
        static final long CURRENT = new com.sun.security.auth.module.UnixSystem().getUid();
    }
}
