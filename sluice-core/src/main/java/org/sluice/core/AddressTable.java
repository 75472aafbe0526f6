package org.sluice.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.security.SecureRandom;

/**
 * GCRA buckets for client addresses in a fixed amount of memory, whatever a flood of
 * invented addresses does.
 *
 * <h2>Layout</h2>
 * <pre>
 *   slots: long[n]   (n a power of two, default 2^20 = 8 MiB)
 *   +--------+--------+--------+-----+----------+
 *   | word 0 | word 1 | word 2 | ... | word n-1 |     one GCRA word per slot
 *   +--------+--------+--------+-----+----------+
 *   index(address) = SipHash-2-4(salt, key(address)) &amp; (n - 1)
 * </pre>
 * Nothing else is stored: no keys, no per-address objects, no growth. Two addresses
 * whose keys land in the same slot <em>share one bucket</em> (a collision makes both
 * stricter, never looser). The salt is 128 random bits drawn from {@link SecureRandom}
 * per instance, so a sender cannot choose addresses that collide with a victim's.
 *
 * <h2>Keys</h2>
 * An IPv4 address is its 4 bytes; an IPv6 address counts as its {@code /64} (the
 * first 8 bytes: one subscriber's allocation, which can otherwise mint addresses at
 * will); an IPv4-mapped IPv6 address ({@code ::ffff:a.b.c.d}) counts as the IPv4
 * address. The 4- and 8-byte keys hash with their lengths, so they never coincide.
 *
 * <h2>States of a word</h2>
 * <ul>
 *   <li>{@code 0}: empty, never charged (or reset): a full bucket.</li>
 *   <li>any other value: the bucket's theoretical arrival time {@code tat} in the
 *       caller's clock, stored with its sign bit flipped ({@code word = tat ^
 *       Long.MIN_VALUE}) so that the common clock readings near 0 (a manual clock
 *       starts there) never meet the empty marker. {@code tat <= now} is again a full
 *       bucket, identical to empty. The one {@code tat} that would encode as 0, {@code
 *       Long.MIN_VALUE}, is stored as {@code Long.MIN_VALUE + 1} (one nanosecond
 *       stricter).</li>
 * </ul>
 *
 * <h2>Algorithm and ordering</h2>
 * A charge reads the word with volatile semantics, computes the decision with {@link
 * Gcra}, and on admission installs the new {@code tat} with one compare-and-swap; a
 * failed CAS means another charge won the slot, so it re-reads and decides again. A
 * refusal writes nothing. Hence concurrent charges on one slot are linearised by their
 * successful CAS and can never overshoot: every admitted charge was decided against
 * the word it replaced. There are no other writers except {@link #clear()}.
 */
public final class AddressTable {

    /** Default number of slots: 2^20 (8 MiB). */
    public static final int DEFAULT_SLOTS = 1 << 20;
    /** Largest number of slots accepted: 2^30 (8 GiB). */
    public static final int MAX_SLOTS = 1 << 30;

    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(long[].class);
    private static final long EMPTY = 0L;

    private final long[] slots;
    private final int mask;
    private final long k0;
    private final long k1;

    /** {@value #DEFAULT_SLOTS} slots under a fresh random salt. */
    public AddressTable() {
        this(DEFAULT_SLOTS);
    }

    /**
     * {@code slots} slots (a power of two from 1 to {@value #MAX_SLOTS}) under a fresh
     * random salt.
     */
    public AddressTable(int slots) {
        this(slots, randomSalt());
    }

    private AddressTable(int slots, long[] salt) {
        this(slots, salt[0], salt[1]);
    }

    /** A table with a chosen salt: for tests that need reproducible slot placement. */
    AddressTable(int slots, long k0, long k1) {
        if (slots < 1 || slots > MAX_SLOTS || Integer.bitCount(slots) != 1) {
            throw new IllegalArgumentException(
                    "slots must be a power of two from 1 to " + MAX_SLOTS + ", got " + slots);
        }
        this.slots = new long[slots];
        this.mask = slots - 1;
        this.k0 = k0;
        this.k1 = k1;
    }

    private static long[] randomSalt() {
        SecureRandom random = new SecureRandom();
        return new long[] {random.nextLong(), random.nextLong()};
    }

    // ------------------------------------------------------------------ charging

    /**
     * Charges {@code increment} ns (tolerance {@code tolerance} ns) to {@code address}'s
     * bucket at {@code now}: 0 when admitted, else the nanoseconds until it would be (and
     * nothing is written).
     */
    public long tryCharge(InetAddress address, long increment, long tolerance, long now) {
        return charge(indexOf(address), increment, tolerance, now);
    }

    /** One hook under {@code limit}: {@code tryCharge(address, limit.intervalNanos(), limit.toleranceNanos(), now)}. */
    public long tryCharge(InetAddress address, Limit limit, long now) {
        return charge(indexOf(address), limit.intervalNanos(), limit.toleranceNanos(), now);
    }

    /**
     * As {@link #tryCharge(InetAddress, long, long, long)} for a raw address: 4 bytes
     * (IPv4) or 16 bytes (IPv6, normalised as the class comment says).
     */
    public long tryCharge(byte[] address, long increment, long tolerance, long now) {
        return charge(indexOf(address), increment, tolerance, now);
    }

    /** Units {@code address}'s bucket could admit at {@code now}, fractional (see {@link Gcra#remaining}). */
    public double remaining(InetAddress address, long intervalNanos, long tolerance, long now) {
        return Gcra.remaining(tatAt(indexOf(address), now), now, intervalNanos, tolerance);
    }

    /** Hooks {@code address} could send now under {@code limit}, fractional. */
    public double remaining(InetAddress address, Limit limit, long now) {
        return remaining(address, limit.intervalNanos(), limit.toleranceNanos(), now);
    }

    /** As {@link #remaining(InetAddress, long, long, long)} for a raw 4- or 16-byte address. */
    public double remaining(byte[] address, long intervalNanos, long tolerance, long now) {
        return Gcra.remaining(tatAt(indexOf(address), now), now, intervalNanos, tolerance);
    }

    /** The one CAS retry loop: decide against the current word, install on admission. */
    private long charge(int index, long increment, long tolerance, long now) {
        for (;;) {
            long word = (long) SLOT.getVolatile(slots, index);
            long tat = word == EMPTY ? now : word ^ Long.MIN_VALUE;
            long wait = Gcra.waitNanos(tat, now, increment, tolerance);
            if (wait != 0) {
                return wait;
            }
            long next = Gcra.admittedTat(tat, now, increment, tolerance);
            long encoded = next ^ Long.MIN_VALUE;
            if (SLOT.compareAndSet(slots, index, word, encoded == EMPTY ? 1L : encoded)) {
                return 0L;
            }
        }
    }

    private long tatAt(int index, long now) {
        long word = (long) SLOT.getVolatile(slots, index);
        return word == EMPTY ? now : word ^ Long.MIN_VALUE;
    }

    // ------------------------------------------------------------------ keys

    int indexOf(InetAddress address) {
        if (address instanceof Inet4Address) {
            // Inet4Address.hashCode() is the address as a big-endian int: no array copy.
            long word = Integer.reverseBytes(address.hashCode()) & 0xffffffffL;
            return (int) SipHash.hashWord(k0, k1, word, 4) & mask;
        }
        return indexOf(address.getAddress());
    }

    /** The slot of a raw 4- or 16-byte address. Allocation-free. */
    int indexOf(byte[] address) {
        return (int) hashOf(address) & mask;
    }

    long hashOf(byte[] address) {
        if (address.length == 4) {
            return SipHash.hashWord(k0, k1, SipHash.littleEndian(address, 0, 4), 4);
        }
        if (address.length != 16) {
            throw new IllegalArgumentException("address must be 4 or 16 bytes, got " + address.length);
        }
        if (isIpv4Mapped(address)) {
            return SipHash.hashWord(k0, k1, SipHash.littleEndian(address, 12, 4), 4);
        }
        return SipHash.hashWord(k0, k1, SipHash.littleEndian(address, 0, 8), 8);
    }

    /** {@code ::ffff:a.b.c.d}: ten zero bytes, two 0xff bytes, then the IPv4 address. */
    private static boolean isIpv4Mapped(byte[] a) {
        for (int i = 0; i < 10; i++) {
            if (a[i] != 0) {
                return false;
            }
        }
        return a[10] == (byte) 0xff && a[11] == (byte) 0xff;
    }

    // ------------------------------------------------------------------ inspection

    /** The number of slots: fixed at construction. */
    public int slots() {
        return slots.length;
    }

    /**
     * Slots whose bucket is not full at {@code now}: how many address groups are
     * currently being limited (collisions count once). A scan of the array, no
     * allocation: about a millisecond per 2^20 slots, meant for a metrics gauge, not
     * for the request path. Concurrent charges may or may not be counted.
     */
    public long occupied(long now) {
        long count = 0;
        for (int i = 0; i < slots.length; i++) {
            long word = (long) SLOT.getOpaque(slots, i);
            if (word != EMPTY && (word ^ Long.MIN_VALUE) - now > 0) {
                count++;
            }
        }
        return count;
    }

    /** Empties every slot (all buckets full). Charges racing a clear may survive it. */
    public void clear() {
        for (int i = 0; i < slots.length; i++) {
            SLOT.setVolatile(slots, i, EMPTY);
        }
    }

    /** The backing array, for tests that check memory stays fixed. */
    long[] backingArray() {
        return slots;
    }
}
