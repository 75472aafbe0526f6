package org.sluice.shm;

/**
 * Offsets of everything in an arena file. All integers are little-endian.
 *
 * <pre>
 *  0      +-------------------------------------------------------------+
 *         | header (4096 bytes)                                         |
 *         |   0 magic "SLUICEAR"     8 layout version (int)             |
 *         |  12 directory entries    16 boot id (16 bytes)              |
 *         |  32 file size            40 top: next free byte             |
 *         |  48 (unused; layout 1's hash seed)                         |
 *         |  56 created, unix millis  64 hash key k0   72 hash key k1    |
 *  4096   +-------------------------------------------------------------+
 *         | carve directory: 64 entries x 128 bytes                     |
 *         |   0 state (READY when complete)   8 kind (int)  12 slots    |
 *         |  16 offset   24 bytes   32 limit   40 window nanos          |
 *         |  48 name length (int)   56 name, UTF-8, up to 64 bytes      |
 *  12288  +-------------------------------------------------------------+
 *         | carves, each 64-byte aligned, bump-allocated from "top"    |
 *         |   see SlotTable for the inside of a carve                   |
 *  size   +-------------------------------------------------------------+
 * </pre>
 *
 * The header and directory change only under the arena's file lock (plus a JVM-wide
 * lock, because a POSIX record lock is per process). The magic is written last when a
 * file is initialised and an entry's state last when a carve is made, both with a
 * volatile store, so a process that dies half way leaves a file without magic or an
 * entry that is not READY; whoever takes the lock next sees that no one is still
 * writing (the dead holder's lock is gone) and starts that piece again. The one thing a
 * crash in the middle of carving can leave behind is up to one carve's worth of space
 * allocated and unused ("top" is advanced before the entry is published, never after,
 * so two carves can never overlap).
 */
final class ArenaLayout {

    /** "SLUICEAR" read as a little-endian long. */
    static final long MAGIC = 0x524145434955_4C53L;
    /**
     * 3: each counter stripe's upper 32 bytes are a counting lane (holder token, allowed,
     * denied) that one thread writes with plain adds (see {@link SlotTable}); a process of
     * version 2 would neither sum nor respect them. 2: the key hash is SipHash-1-3 under
     * the 128-bit key at {@link #HASH_KEY_AT} (1: a seeded MurmurHash3-style mix, seed at
     * 48; buckets of one are at other slots in the other). No two versions share a file.
     */
    static final int LAYOUT_VERSION = 3;

    static final int MAGIC_AT = 0;
    static final int VERSION_AT = 8;
    static final int ENTRIES_AT = 12;
    static final int BOOT_ID_AT = 16;
    static final int FILE_SIZE_AT = 32;
    static final int TOP_AT = 40;
    static final int CREATED_AT = 56;
    /** The key hash's secret key: k0 then k1, two little-endian longs. */
    static final int HASH_KEY_AT = 64;

    static final int DIRECTORY_AT = 4096;
    static final int ENTRIES = 64;
    static final int ENTRY_BYTES = 128;
    static final int FIRST_CARVE_AT = DIRECTORY_AT + ENTRIES * ENTRY_BYTES;

    static final int E_STATE = 0;
    static final int E_KIND = 8;
    static final int E_SLOTS = 12;
    static final int E_OFFSET = 16;
    static final int E_BYTES = 24;
    static final int E_LIMIT = 32;
    static final int E_WINDOW = 40;
    static final int E_NAME_LENGTH = 48;
    static final int E_NAME = 56;
    static final int MAX_NAME_BYTES = 64;

    /** "READY" marks a complete directory entry. */
    static final long READY = 0x5944414552L;

    static final int KIND_RATE = 1;
    static final int KIND_GCRA = 2;
    /** A {@link SharedLimiter}'s bandwidth: a GCRA table whose fingerprints' lowest bit is the limit version's parity. */
    static final int KIND_LIMITER = 3;
    /** A {@link SharedLimiter}'s {@link LimitRecord}. */
    static final int KIND_LIMIT = 4;

    static final int PAGE = 4096;
    static final long MIN_SIZE = 64 * 1024;
    static final long MAX_SIZE = Integer.MAX_VALUE & ~(PAGE - 1);

    private ArenaLayout() {
    }

    static int entryAt(int index) {
        return DIRECTORY_AT + index * ENTRY_BYTES;
    }
}
