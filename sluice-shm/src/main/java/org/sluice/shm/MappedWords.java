package org.sluice.shm;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.Reference;
import java.lang.reflect.Field;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Atomic access to the aligned 8-byte words of one region of the mapped arena: the
 * only three operations the hot path needs (volatile read, compare-and-swap, atomic
 * add), in one of two ways chosen once per JVM.
 *
 * <h2>The two ways</h2>
 * <ul>
 *   <li><b>raw</b>: {@code sun.misc.Unsafe} (module {@code jdk.unsupported}) on the
 *       mapping's address. The default before Java 24. The same machine instructions as
 *       the other way, without the per-access checks a byte-buffer view handle makes
 *       (index bounds, alignment, read-only, memory session), which on Java 17 made a
 *       CAS and an atomic add several times dearer than the instruction itself.</li>
 *   <li><b>view</b>: a byte-buffer view {@link VarHandle} over the mapping. The default
 *       from Java 24 on, where {@code sun.misc.Unsafe}'s memory access methods print a
 *       warning at first use (JEP 498) and are to be removed; also the fallback when the
 *       raw way cannot be set up.</li>
 * </ul>
 * The system property {@code org.sluice.shm.unsafe} ({@code true} or {@code false})
 * overrides the choice; {@link #RAW} says which is in use.
 *
 * <h2>Why the raw way is as safe as the view</h2>
 * <ul>
 *   <li>Bounds: the region is checked once, here, against the mapping's capacity, and
 *       every offset a caller passes is inside it by construction ({@link SlotTable}
 *       masks its group index and stripe; offsets coming from outside are checked
 *       there). With assertions on (the tests), every access is checked again.</li>
 *   <li>Alignment: the region starts 8-byte aligned in a page-aligned mapping (checked
 *       here) and callers use multiples of 8 from it, as the atomic instructions
 *       require.</li>
 *   <li>Lifetime: the mapping is unmapped only when its buffer becomes unreachable, and
 *       every access ends with {@link Reference#reachabilityFence} on the buffer (as the
 *       JDK's own direct buffers do), so it cannot be unmapped under an access.
 *       {@link SharedArena#close()} does not unmap (Java 17 cannot), so handles keep
 *       working after it, in both ways.</li>
 *   <li>A page the file no longer backs (someone truncated it) raises SIGBUS in both
 *       ways alike; the JVM turns it into an {@code InternalError} for an unsafe
 *       access, as for the view.</li>
 * </ul>
 * Memory ordering is the same in both ways: volatile reads, sequentially consistent
 * compare-and-swap and add.
 */
final class MappedWords {

    static final VarHandle VIEW = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    /** {@code sun.misc.Unsafe} when the raw way is in use, else null. */
    private static final sun.misc.Unsafe UNSAFE;
    /** Offset of {@code java.nio.Buffer.address} (the mapping's address), raw way only. */
    private static final long ADDRESS_FIELD;

    /** True when this JVM uses the raw way. */
    static final boolean RAW;

    static {
        sun.misc.Unsafe unsafe = null;
        long addressField = -1;
        if (wantRaw(System.getProperty("org.sluice.shm.unsafe"), Runtime.version().feature())) {
            try {
                Field f = sun.misc.Unsafe.class.getDeclaredField("theUnsafe");
                f.setAccessible(true);
                unsafe = (sun.misc.Unsafe) f.get(null);
                addressField = unsafe.objectFieldOffset(Buffer.class.getDeclaredField("address"));
            } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
                unsafe = null; // no jdk.unsupported, or a JVM that refuses: the view it is
            }
        }
        UNSAFE = unsafe;
        ADDRESS_FIELD = addressField;
        RAW = unsafe != null;
    }

    private final ByteBuffer map;
    /** The mapping's address (raw way), else 0. */
    private final long address;
    private final int from;
    private final int to;

    /** The words of {@code map} in bytes {@code [from, to)}; refuses a region outside it or misaligned. */
    MappedWords(ByteBuffer map, int from, int to) {
        if (!map.isDirect() || map.isReadOnly()) {
            throw new IllegalArgumentException("map must be a writable direct buffer, got " + map);
        }
        if (from < 0 || to < from || to > map.capacity() || (from & 7) != 0 || ((to - from) & 7) != 0) {
            throw new IllegalArgumentException("region [" + from + ", " + to + ") must be 8-byte aligned and lie inside the mapping of "
                    + map.capacity() + " bytes");
        }
        this.map = map;
        this.address = RAW ? UNSAFE.getLong(map, ADDRESS_FIELD) : 0;
        if (RAW && (address == 0 || ((address + from) & 7) != 0)) {
            throw new IllegalStateException("mapping at address 0x" + Long.toHexString(address) + " is not 8-byte aligned");
        }
        this.from = from;
        this.to = to;
    }

    static boolean wantRaw(String property, int javaFeature) {
        if (property != null) {
            return Boolean.parseBoolean(property.trim());
        }
        return javaFeature < 24;
    }

    long getVolatile(int at) {
        assert inside(at) : at;
        if (UNSAFE == null) {
            return (long) VIEW.getVolatile(map, at);
        }
        try {
            return UNSAFE.getLongVolatile(null, address + at);
        } finally {
            Reference.reachabilityFence(map);
        }
    }

    boolean compareAndSet(int at, long expected, long next) {
        assert inside(at) : at;
        if (UNSAFE == null) {
            return VIEW.compareAndSet(map, at, expected, next);
        }
        try {
            return UNSAFE.compareAndSwapLong(null, address + at, expected, next);
        } finally {
            Reference.reachabilityFence(map);
        }
    }

    /** A plain read: for a word only the calling thread writes (a counting lane's own count). */
    long getPlain(int at) {
        assert inside(at) : at;
        if (UNSAFE == null) {
            return (long) VIEW.get(map, at);
        }
        try {
            return UNSAFE.getLong(null, address + at);
        } finally {
            Reference.reachabilityFence(map);
        }
    }

    /** A release write: every write before it is visible to whoever reads this value with {@link #getVolatile}. */
    void setRelease(int at, long value) {
        assert inside(at) : at;
        if (UNSAFE == null) {
            VIEW.setRelease(map, at, value);
            return;
        }
        try {
            UNSAFE.putOrderedLong(null, address + at, value);
        } finally {
            Reference.reachabilityFence(map);
        }
    }

    void getAndAdd(int at, long delta) {
        assert inside(at) : at;
        if (UNSAFE == null) {
            VIEW.getAndAdd(map, at, delta);
            return;
        }
        try {
            UNSAFE.getAndAddLong(null, address + at, delta);
        } finally {
            Reference.reachabilityFence(map);
        }
    }

    private boolean inside(int at) {
        return at >= from && at <= to - 8 && ((at - from) & 7) == 0;
    }
}
