package org.sluice.shm;

import static org.sluice.shm.ArenaLayout.*;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.UUID;
import java.util.concurrent.locks.ReentrantLock;
import org.sluice.core.Clock;
import org.sluice.core.Limit;
import org.sluice.core.Sleeper;

/**
 * A memory-mapped file that every process on a host maps, holding named carves: token
 * bucket tables ({@link #rate}) and raw GCRA tables ({@link #gcraTable}).
 *
 * <pre>{@code
 * try (SharedArena arena = SharedArena.create(SharedArena.defaultFile("sluice"), 4 << 20)) {
 *     SharedRate api = arena.rate("api", 100, Duration.ofSeconds(60));
 *     if (!api.allow(clientIp)) { ... 429 ... }
 * }
 * }</pre>
 *
 * <h2>Where the file lives</h2>
 * By default in {@code /dev/shm} ({@link #DEFAULT_DIRECTORY}), a tmpfs: the pages are
 * memory, never written to disk, shared by every process that maps the file, and gone
 * at reboot. Any path works (a file on disk is paged out by the kernel as it likes).
 * The file is made owner-only (0600), or 0660 with a group ({@link #create(Path, long,
 * String)}), never through a symbolic link, and a file another user could have planted
 * or can read is refused ({@link ArenaFile}): its header holds the key hash's secret key.
 *
 * <h2>Create, attach, and what is trusted</h2>
 * {@link #create} makes and initialises the file, or attaches when it already holds an
 * arena; {@link #attach} only attaches. Both check the header: the magic (else "not a
 * sluice arena", and the file is left untouched: {@code create} initialises only an
 * empty file or one a dying creator left without its magic), the layout version (another version is refused, with both versions in
 * the message), and the boot id ({@code /proc/sys/kernel/random/boot_id}). Bucket times
 * come from the monotonic clock, which restarts at boot, so a file written during an
 * earlier boot (possible for a file outside tmpfs) is reinitialised, not trusted. The
 * size of an existing arena is the size it was created with.
 *
 * <h2>Structure changes</h2>
 * Initialising the file and making a carve happen under an exclusive lock on the file
 * ({@link FileChannel#tryLock()}, waited for at most {@link #LOCK_WAIT}; the kernel
 * releases it if the holder dies) and a JVM-wide lock. So two processes carving the same name at the same moment are serialised: the
 * first creates it, the second finds it and attaches. The hot path takes no lock.
 *
 * <h2>Closing</h2>
 * {@link #close()} closes the file channel; no new carves can be made. Java 17 has no
 * safe way to unmap a buffer, so the mapping (and handles already obtained) stay usable
 * until they become unreachable; the file itself stays, with its buckets, for other
 * processes and for the next start.
 */
public final class SharedArena implements AutoCloseable {

    /** Where arena files go by default: the host's shared-memory tmpfs. */
    public static final Path DEFAULT_DIRECTORY = Path.of("/dev/shm");

    /** The layout version this library reads and writes. */
    public static final int LAYOUT_VERSION = ArenaLayout.LAYOUT_VERSION;

    /** Slots of a {@link #rate(String, long, Duration)} carve when none are asked for. */
    public static final int DEFAULT_SLOTS = 4096;

    private static final VarHandle LONGS = MappedWords.VIEW;
    /** POSIX record locks belong to a process, so threads of one JVM queue here first. */
    private static final ReentrantLock STRUCTURE = new ReentrantLock();
    private static final Path BOOT_ID_FILE = Path.of("/proc/sys/kernel/random/boot_id");
    /** The longest a structure change waits for another process to release the file lock. */
    static final Duration LOCK_WAIT = Duration.ofSeconds(30);

    private final Path file;
    private final FileChannel channel;
    private final MappedByteBuffer map;
    private final long size;
    private final KeyHash keyHash;
    private volatile boolean closed;
    /** True while this arena's thread holding {@link #STRUCTURE} holds the file lock too (read and written under STRUCTURE). */
    private boolean fileLockHeld;

    private SharedArena(Path file, FileChannel channel, MappedByteBuffer map, long size) {
        this.file = file;
        this.channel = channel;
        this.map = map;
        this.size = size;
        this.keyHash = new KeyHash(map.getLong(HASH_KEY_AT), map.getLong(HASH_KEY_AT + 8));
    }

    /** {@code DEFAULT_DIRECTORY/name}, or the same name under {@code java.io.tmpdir} where there is no {@code /dev/shm}. */
    public static Path defaultFile(String name) {
        Path dir = Files.isDirectory(DEFAULT_DIRECTORY) ? DEFAULT_DIRECTORY : Path.of(System.getProperty("java.io.tmpdir"));
        return dir.resolve(name);
    }

    /**
     * Creates an arena of {@code sizeBytes} (rounded up to 4 KiB, at least 64 KiB, at
     * most 2 GiB - 4 KiB) at {@code file}, or attaches when the file already holds one.
     * A new file is readable and writable by its owner only (0600); an existing one must
     * pass the checks of {@link #attach(Path)}.
     */
    public static SharedArena create(Path file, long sizeBytes) {
        return create(file, sizeBytes, null);
    }

    /**
     * As {@link #create(Path, long)}, sharing the file with the members of {@code group}
     * (null: owner only): a new file is given that group and mode 0660, and an existing
     * file of that group is accepted from another owner (see {@link #attach(Path, String)}).
     * The process must be allowed to give its files that group (be a member of it).
     */
    public static SharedArena create(Path file, long sizeBytes, String group) {
        if (sizeBytes < MIN_SIZE || sizeBytes > MAX_SIZE) {
            throw new IllegalArgumentException("sizeBytes must be between " + MIN_SIZE + " and " + MAX_SIZE + ", got " + sizeBytes);
        }
        return open(file, (sizeBytes + PAGE - 1) & ~(long) (PAGE - 1), true, group, bootId(), null);
    }

    /**
     * Attaches to the arena at {@code file}; refuses a missing file or one that holds no
     * arena of this layout version, and refuses to trust a file that another local user
     * could have planted or can read: a symbolic link, anything but a regular file, a file
     * owned by another user, or one that grants any permission to others or to its group
     * (its header holds the secret hash key). The message names the path, owner and mode.
     */
    public static SharedArena attach(Path file) {
        return attach(file, null);
    }

    /**
     * As {@link #attach(Path)}, also trusting a file whose group is {@code group} (null:
     * none): group permissions are then allowed, and so is another owner, since every
     * member of the group can write the file anyway. Others still get nothing.
     */
    public static SharedArena attach(Path file, String group) {
        return open(file, 0, false, group, bootId(), null);
    }

    /**
     * Opens under the file lock. {@code bootId} and {@code hashKey} (null: random) are
     * parameters so that tests can play a previous boot and fix the hash key.
     */
    static SharedArena open(Path file, long sizeBytes, boolean create, UUID bootId, KeyHash hashKey) {
        return open(file, sizeBytes, create, null, bootId, hashKey);
    }

    static SharedArena open(Path file, long sizeBytes, boolean create, String group, UUID bootId, KeyHash hashKey) {
        FileChannel channel = ArenaFile.open(file, create, group);
        boolean ok = false;
        STRUCTURE.lock();
        try (FileLock lock = lock(file, channel)) {
            long existing = channel.size();
            ByteBuffer head = readHead(channel);
            long magic = head.getLong(MAGIC_AT);
            long size;
            MappedByteBuffer map;
            if (existing >= FIRST_CARVE_AT && magic == MAGIC) {
                size = existing;
                map = map(channel, size);
                check(file, map, size);
                if (!Arrays.equals(bootIdBytes(bootId), bootIdOf(map))) {
                    initialise(map, size, bootId, hashKey); // a previous boot's clock readings mean nothing now
                }
            } else if (existing != 0 && !(magic == 0 && existing >= MIN_SIZE
                    && (head.getInt(VERSION_AT) == 0 || head.getInt(VERSION_AT) == LAYOUT_VERSION))) {
                // neither empty nor left half-initialised by a creator that died: someone else's file
                throw new IllegalStateException("not a sluice arena: " + file + " (" + existing + " bytes) starts with 0x"
                        + Long.toHexString(magic) + ", expected the magic 0x" + Long.toHexString(MAGIC) + "; it was left untouched");
            } else if (!create) {
                throw new IllegalStateException("no shared arena at " + file + ": the file is " + existing
                        + " bytes and was never initialised (SharedArena.create initialises it)");
            } else {
                size = sizeBytes;
                if (existing != size) {
                    channel.truncate(Math.min(existing, size));
                    channel.write(ByteBuffer.allocate(1), size - 1); // tmpfs and most file systems: sparse zeros
                }
                map = map(channel, size);
                initialise(map, size, bootId, hashKey);
            }
            ok = true;
            return new SharedArena(file, channel, map, size);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot map shared arena file " + file, e);
        } finally {
            if (!ok) {
                closeQuietly(channel); // under STRUCTURE: closing drops every POSIX lock this JVM holds on the file
            }
            STRUCTURE.unlock();
        }
    }

    /** The first 16 bytes (magic and version), zeros past the end of a short file. */
    private static ByteBuffer readHead(FileChannel channel) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
        while (b.hasRemaining() && channel.read(b, b.position()) > 0) {
            // read until full or end of file
        }
        return b.clear();
    }

    /** The file lock, waited for at most {@link #LOCK_WAIT}: a process stuck holding it must not hang this one. */
    private static FileLock lock(Path file, FileChannel channel) throws IOException {
        long deadline = System.nanoTime() + LOCK_WAIT.toNanos();
        while (true) {
            FileLock lock = channel.tryLock();
            if (lock != null) {
                return lock;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("shared arena " + file + ": another process has held its lock for more than "
                        + LOCK_WAIT + " (structure changes only; is a process stopped under a debugger?)");
            }
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for the lock of shared arena " + file, e);
            }
        }
    }

    private static MappedByteBuffer map(FileChannel channel, long size) throws IOException {
        MappedByteBuffer m = channel.map(FileChannel.MapMode.READ_WRITE, 0, size);
        m.order(ByteOrder.LITTLE_ENDIAN);
        return m;
    }

    private static void check(Path file, ByteBuffer map, long size) {
        long magic = map.getLong(MAGIC_AT);
        if (magic != MAGIC) {
            throw new IllegalStateException("not a sluice arena: " + file + " starts with 0x" + Long.toHexString(magic)
                    + ", expected the magic 0x" + Long.toHexString(MAGIC));
        }
        int version = map.getInt(VERSION_AT);
        if (version != LAYOUT_VERSION) {
            throw new IllegalStateException("shared arena " + file + " has layout version " + version
                    + "; this library reads layout version " + LAYOUT_VERSION
                    + " (stop the processes using it and remove the file, or run a matching version)");
        }
        long recorded = map.getLong(FILE_SIZE_AT);
        long top = map.getLong(TOP_AT);
        if (recorded != size || top < FIRST_CARVE_AT || top > size || map.getInt(ENTRIES_AT) != ENTRIES) {
            throw new IllegalStateException("shared arena " + file + " is damaged: header says size " + recorded
                    + " and top " + top + ", the file is " + size + " bytes");
        }
    }

    private static void initialise(MappedByteBuffer map, long size, UUID bootId, KeyHash hashKey) {
        LONGS.setVolatile(map, MAGIC_AT, 0L); // until the header is whole again
        zero(map, 8, FIRST_CARVE_AT - 8);
        map.putInt(VERSION_AT, LAYOUT_VERSION);
        map.putInt(ENTRIES_AT, ENTRIES);
        map.put(BOOT_ID_AT, bootIdBytes(bootId));
        map.putLong(FILE_SIZE_AT, size);
        map.putLong(TOP_AT, FIRST_CARVE_AT);
        KeyHash key = hashKey != null ? hashKey : KeyHash.random();
        map.putLong(HASH_KEY_AT, key.k0());
        map.putLong(HASH_KEY_AT + 8, key.k1());
        map.putLong(CREATED_AT, System.currentTimeMillis());
        LONGS.setVolatile(map, MAGIC_AT, MAGIC);
    }

    private static void zero(ByteBuffer map, int from, int length) {
        byte[] zeros = new byte[Math.min(length, 1 << 16)];
        for (int at = from, end = from + length; at < end; at += zeros.length) {
            map.put(at, zeros, 0, Math.min(zeros.length, end - at));
        }
    }

    // ------------------------------------------------------------------ boot id

    static UUID bootId() {
        try {
            return UUID.fromString(Files.readString(BOOT_ID_FILE).trim());
        } catch (IOException | IllegalArgumentException e) {
            return new UUID(0, 0); // not Linux: no reboot detection (the file is normally on tmpfs anyway)
        }
    }

    private static byte[] bootIdBytes(UUID id) {
        return ByteBuffer.allocate(16).putLong(id.getMostSignificantBits()).putLong(id.getLeastSignificantBits()).array();
    }

    private static byte[] bootIdOf(ByteBuffer map) {
        byte[] b = new byte[16];
        map.get(BOOT_ID_AT, b);
        return b;
    }

    // ------------------------------------------------------------------ carves

    /** A token bucket per key: {@code limit} tokens, refilled at {@code limit} per {@code window}, {@value #DEFAULT_SLOTS} slots. */
    public SharedRate rate(String name, long limit, Duration window) {
        return rate(name, limit, window, DEFAULT_SLOTS, Clock.system());
    }

    /** As {@link #rate(String, long, Duration)} with {@code slots} keys (rounded up to a power of two). */
    public SharedRate rate(String name, long limit, Duration window, int slots) {
        return rate(name, limit, window, slots, Clock.system());
    }

    /**
     * As {@link #rate(String, long, Duration, int)} reading time from {@code clock}. Every
     * process must use the system clock (or, in tests, clocks that agree) for the limits
     * to mean anything.
     */
    public SharedRate rate(String name, long limit, Duration window, int slots, Clock clock) {
        SharedRate.Policy policy = SharedRate.Policy.of(limit, window);
        int rounded = SlotTable.roundSlots("slots", slots);
        int offset = carve(name, KIND_RATE, policy.limit(), policy.windowNanos(), rounded);
        return new SharedRate(name, policy, new SlotTable(map, offset, rounded), keyHash, clock);
    }

    /**
     * A table of GCRA buckets whose policy (increment and tolerance) is given per call,
     * so keys with different limits share one table. {@code slots} is rounded up to a
     * power of two.
     */
    public SharedGcraTable gcraTable(String name, int slots) {
        int rounded = SlotTable.roundSlots("slots", slots);
        int offset = carve(name, KIND_GCRA, 0, 0, rounded);
        return new SharedGcraTable(name, new SlotTable(map, offset, rounded), keyHash);
    }

    /**
     * sluice-core's {@link org.sluice.core.KeyedLimit} on this arena: {@code limit} per
     * key for every process that maps it, over the GCRA table {@code name} of {@code
     * slots} keys (see {@link SharedLimiter}). Processes share a key's bucket when they
     * name the same table and give it the same limit.
     */
    public SharedLimiter limiter(String name, int slots, Limit limit, Clock clock) {
        return limiter(name, slots, limit, clock, Sleeper.system());
    }

    /**
     * {@link #limiter(String, int, Limit, Clock)} whose blocking {@code acquire} waits on
     * {@code sleeper} (a test passes one that moves its manual clock).
     */
    public SharedLimiter limiter(String name, int slots, Limit limit, Clock clock, Sleeper sleeper) {
        return limiter(name).slots(slots).bandwidth(limit).clock(clock).sleeper(sleeper).build();
    }

    /**
     * A builder of sluice-core's {@link org.sluice.core.KeyedLimit} on this arena, shaped
     * like sluice-core's {@code KeyedLimiter.builder()}: one or more bandwidths, a clock,
     * a sleeper, a listener (see {@link SharedLimiter}).
     */
    public SharedLimiter.Builder limiter(String name) {
        return SharedLimiter.builder(this, name);
    }

    /**
     * The slot table of a {@link SharedLimiter}'s bandwidth, the carve {@code name} of its
     * own kind (its words carry a limit version), made if need be, telling {@code events}
     * of evictions and contention.
     */
    SlotTable limiterTable(String name, int slots, SlotTable.Events events) {
        int rounded = SlotTable.roundSlots("slots", slots);
        int offset = carve(name, KIND_LIMITER, 0, 0, rounded);
        return new SlotTable(map, offset, rounded, events);
    }

    /** The host's limit record of the {@link SharedLimiter} {@code name}: the carve {@code name#limit}, made if need be. */
    LimitRecord limitRecord(String name) {
        int offset = carve(name + "#limit", KIND_LIMIT, 0, 0, SlotTable.MIN_SLOTS); // 1,088 bytes, the record takes 704
        return new LimitRecord(map, offset);
    }

    /** Finds or makes the carve {@code name}; returns its offset. */
    int carve(String name, int kind, long limit, long windowNanos, int slots) {
        byte[] nameBytes = name == null ? new byte[0] : name.getBytes(StandardCharsets.UTF_8);
        if (nameBytes.length == 0 || nameBytes.length > MAX_NAME_BYTES) {
            throw new IllegalArgumentException("carve name must be 1 to " + MAX_NAME_BYTES + " bytes of UTF-8, got "
                    + (name == null ? "null" : "'" + name + "' (" + nameBytes.length + " bytes)"));
        }
        String wanted = describe(name, kind, limit, windowNanos, slots);
        return underLock(() -> {
            int free = -1;
            for (int e = 0; e < ENTRIES; e++) {
                int at = entryAt(e);
                if ((long) LONGS.getVolatile(map, at + E_STATE) != READY) {
                    free = free < 0 ? e : free; // never completed: its writer died holding the lock
                    continue;
                }
                int len = map.getInt(at + E_NAME_LENGTH);
                byte[] existing = new byte[Math.max(0, Math.min(len, MAX_NAME_BYTES))];
                map.get(at + E_NAME, existing);
                if (!Arrays.equals(existing, nameBytes)) {
                    continue;
                }
                int k = map.getInt(at + E_KIND);
                long l = map.getLong(at + E_LIMIT);
                long w = map.getLong(at + E_WINDOW);
                int s = map.getInt(at + E_SLOTS);
                if (k != kind || l != limit || w != windowNanos || s != slots) {
                    throw new IllegalArgumentException("shared arena " + file + " already has " + describe(name, k, l, w, s)
                            + "; refusing to answer for " + wanted + " with it (one name is one policy)");
                }
                long offset = map.getLong(at + E_OFFSET);
                // written so that a hostile offset cannot overflow: offset <= size first, then the room after it
                if (offset < FIRST_CARVE_AT || offset > size || SlotTable.carveBytes(s) > size - offset || (offset & 63) != 0) {
                    throw new IllegalStateException("shared arena " + file + " is damaged: carve '" + name + "' at offset " + offset);
                }
                return (int) offset;
            }
            if (free < 0) {
                throw new IllegalStateException("shared arena " + file + " has no room for " + wanted
                        + ": all " + ENTRIES + " carve entries are used");
            }
            long bytes = (SlotTable.carveBytes(slots) + 63) & ~63L;
            long top = map.getLong(TOP_AT);
            if (top < FIRST_CARVE_AT || top > size || (top & 63) != 0) {
                throw new IllegalStateException("shared arena " + file + " is damaged: its top is " + top
                        + ", the file is " + size + " bytes");
            }
            if (bytes > size - top) {
                throw new IllegalStateException("shared arena " + file + " has " + (size - top) + " bytes free; "
                        + wanted + " needs " + bytes + " (create the arena with a larger sizeBytes)");
            }
            zero(map, (int) top, (int) bytes);
            LONGS.setVolatile(map, TOP_AT, top + bytes); // before publishing: a crash leaks, never overlaps
            int at = entryAt(free);
            zero(map, at, ENTRY_BYTES);
            map.putInt(at + E_KIND, kind);
            map.putInt(at + E_SLOTS, slots);
            map.putLong(at + E_OFFSET, top);
            map.putLong(at + E_BYTES, bytes);
            map.putLong(at + E_LIMIT, limit);
            map.putLong(at + E_WINDOW, windowNanos);
            map.putInt(at + E_NAME_LENGTH, nameBytes.length);
            map.put(at + E_NAME, nameBytes);
            LONGS.setVolatile(map, at + E_STATE, READY);
            return (int) top;
        });
    }

    /**
     * Runs {@code body} holding the arena's structure locks (the JVM-wide one and the
     * file lock), as a carve is made; a carve made inside {@code body} reuses them.
     */
    <T> T underLock(java.util.function.Supplier<T> body) {
        STRUCTURE.lock();
        try {
            if (closed) {
                throw new IllegalStateException("shared arena " + file + " is closed");
            }
            if (fileLockHeld) {
                return body.get();
            }
            try (FileLock lock = lock(file, channel)) {
                fileLockHeld = true;
                try {
                    return body.get();
                } finally {
                    fileLockHeld = false;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot lock shared arena file " + file, e);
        } finally {
            STRUCTURE.unlock();
        }
    }

    private static String describe(String name, int kind, long limit, long windowNanos, int slots) {
        if (kind == KIND_RATE) {
            return "rate '" + name + "' (limit=" + limit + ", window=" + Duration.ofNanos(windowNanos) + ", slots=" + slots + ")";
        }
        if (kind == KIND_GCRA) {
            return "gcra table '" + name + "' (slots=" + slots + ")";
        }
        if (kind == KIND_LIMITER) {
            return "shared limiter table '" + name + "' (slots=" + slots + ")";
        }
        if (kind == KIND_LIMIT) {
            return "shared limiter record '" + name + "'";
        }
        return "carve '" + name + "' of unknown kind " + kind;
    }

    // ------------------------------------------------------------------ accessors

    public Path file() {
        return file;
    }

    /** The file's size in bytes. */
    public long sizeBytes() {
        return size;
    }

    /** Bytes not yet given to a carve. */
    public long freeBytes() {
        return size - (long) LONGS.getVolatile(map, TOP_AT);
    }

    /** Closes the file; no more carves. Handles already obtained keep working (see the class comment). */
    @Override
    public void close() {
        STRUCTURE.lock();
        try {
            if (!closed) {
                closed = true;
                closeQuietly(channel);
            }
        } finally {
            STRUCTURE.unlock();
        }
    }

    private static void closeQuietly(FileChannel channel) {
        try {
            channel.close();
        } catch (IOException ignored) {
            // nothing more to do with a channel we are dropping
        }
    }

    /** The arena's key hash (tests use it to find keys that share a group). */
    KeyHash keyHash() {
        return keyHash;
    }

    ByteBuffer mapping() {
        return map;
    }

    @Override
    public String toString() {
        return "SharedArena[" + file + ", " + size + " bytes]";
    }
}
