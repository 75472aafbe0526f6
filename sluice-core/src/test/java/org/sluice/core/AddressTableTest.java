package org.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class AddressTableTest {

    private static final long SECOND = 1_000_000_000L;
    /** 1 hook per second, 5 back to back. */
    private static final Limit LIMIT = Limit.of(1, 5);

    private static InetAddress ip(String literal) {
        try {
            return InetAddress.getByName(literal);
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    private static int admitted(AddressTable table, InetAddress address, int attempts, long now) {
        int admitted = 0;
        for (int i = 0; i < attempts; i++) {
            if (table.tryCharge(address, LIMIT, now) == 0) {
                admitted++;
            }
        }
        return admitted;
    }

    /** A large table with a fixed salt, so that slot placement in these tests is reproducible. */
    private static AddressTable fixedTable() {
        return new AddressTable(1 << 20, 0x1234_5678_9abc_def0L, 0x0fed_cba9_8765_4321L);
    }

    @Test
    void exactlyBurstThenOnePerInterval() {
        AddressTable table = fixedTable();
        TestClock clock = new TestClock(7 * SECOND);
        InetAddress a = ip("192.0.2.1");
        assertThat(admitted(table, a, 100, clock.nanoTime())).isEqualTo(5);
        assertThat(table.tryCharge(a, LIMIT, clock.nanoTime())).isEqualTo(SECOND);
        clock.advanceNanos(SECOND - 1);
        assertThat(table.tryCharge(a, LIMIT, clock.nanoTime())).isEqualTo(1);
        clock.advanceNanos(1);
        assertThat(admitted(table, a, 100, clock.nanoTime())).isEqualTo(1);
        assertThat(table.remaining(a, LIMIT.intervalNanos(), LIMIT.toleranceNanos(), clock.nanoTime())).isEqualTo(0.0);
        clock.advanceNanos(5 * SECOND / 2);
        assertThat(table.remaining(a, LIMIT.intervalNanos(), LIMIT.toleranceNanos(), clock.nanoTime())).isEqualTo(2.5);
    }

    @Test
    void addressesInOneSlash64ShareABucket() {
        AddressTable table = fixedTable();
        long now = 0;
        InetAddress first = ip("2001:db8:1:2:0:0:0:1");
        InetAddress second = ip("2001:db8:1:2:ffff:ffff:ffff:ffff");
        assertThat(admitted(table, first, 3, now)).isEqualTo(3);
        assertThat(admitted(table, second, 100, now)).isEqualTo(2);
        assertThat(admitted(table, first, 100, now)).isZero();
    }

    @Test
    void separateSlash64sDoNotShare() {
        AddressTable table = fixedTable();
        long now = 0;
        List<InetAddress> prefixes = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            prefixes.add(ip("2001:db8:0:" + Integer.toHexString(i) + "::1"));
        }
        // With a fixed salt placement is deterministic: check the premise, then the counts.
        assertThat(prefixes.stream().mapToInt(table::indexOf).distinct().count()).isEqualTo(50);
        for (InetAddress p : prefixes) {
            assertThat(admitted(table, p, 20, now)).as(p.toString()).isEqualTo(5);
        }
        assertThat(table.occupied(now)).isEqualTo(50);
    }

    @Test
    void ipv4MappedIpv6CountsAsTheIpv4Address() throws Exception {
        AddressTable table = fixedTable();
        byte[] v4 = {(byte) 198, 51, 100, 7};
        byte[] mapped = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (byte) 0xff, (byte) 0xff, (byte) 198, 51, 100, 7};
        InetAddress mappedV6 = java.net.Inet6Address.getByAddress(null, mapped, -1);
        assertThat(table.indexOf(mappedV6)).isEqualTo(table.indexOf(v4)).isEqualTo(table.indexOf(ip("198.51.100.7")));
        assertThat(table.tryCharge(v4, LIMIT.intervalNanos(), LIMIT.toleranceNanos(), 0)).isZero();
        assertThat(admitted(table, ip("::ffff:198.51.100.7"), 100, 0)).isEqualTo(4);
        assertThat(table.tryCharge(mapped, LIMIT.intervalNanos(), LIMIT.toleranceNanos(), 0)).isEqualTo(SECOND);
    }

    @Test
    void inetAddressAndRawBytesAgree() throws Exception {
        AddressTable table = new AddressTable(1 << 16);
        java.util.Random random = new java.util.Random(42);
        for (int i = 0; i < 10_000; i++) {
            byte[] v4 = new byte[4];
            random.nextBytes(v4);
            assertThat(table.indexOf(InetAddress.getByAddress(v4))).isEqualTo(table.indexOf(v4));
            byte[] v6 = new byte[16];
            random.nextBytes(v6);
            assertThat(table.indexOf(InetAddress.getByAddress(v6))).isEqualTo(table.indexOf(v6));
        }
    }

    @Test
    void ipv4AndIpv6WithTheSameLeadingBytesAreDifferentKeys() {
        AddressTable table = fixedTable();
        byte[] v4 = {32, 1, 13, (byte) 184};
        byte[] v6 = {32, 1, 13, (byte) 184, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
        assertThat(table.hashOf(v4)).isNotEqualTo(table.hashOf(v6));
    }

    @Test
    void collidingAddressesShareABucket() {
        AddressTable table = new AddressTable(4, 1L, 2L);
        byte[] a = {10, 0, 0, 1};
        byte[] b = null;
        for (int i = 2; i < 256 && b == null; i++) {
            byte[] candidate = {10, 0, 0, (byte) i};
            if (table.indexOf(candidate) == table.indexOf(a)) {
                b = candidate;
            }
        }
        assertThat(b).as("a colliding address among 254 in 4 slots").isNotNull();
        for (int i = 0; i < 5; i++) {
            assertThat(table.tryCharge(a, LIMIT.intervalNanos(), LIMIT.toleranceNanos(), 0)).isZero();
        }
        assertThat(table.tryCharge(b, LIMIT.intervalNanos(), LIMIT.toleranceNanos(), 0)).isEqualTo(SECOND);
    }

    @Test
    void eachInstanceDrawsItsOwnSalt() {
        AddressTable one = new AddressTable();
        AddressTable two = new AddressTable();
        byte[] address = {10, 1, 2, 3};
        assertThat(one.hashOf(address)).isNotEqualTo(two.hashOf(address));
    }

    @Test
    void slotCountMustBeAPowerOfTwo() {
        assertThat(new AddressTable().slots()).isEqualTo(1 << 20);
        assertThat(new AddressTable(1).slots()).isEqualTo(1);
        assertThatThrownBy(() -> new AddressTable(1000))
                .hasMessage("slots must be a power of two from 1 to 1073741824, got 1000");
        assertThatThrownBy(() -> new AddressTable(0))
                .hasMessage("slots must be a power of two from 1 to 1073741824, got 0");
        assertThatThrownBy(() -> new AddressTable(Integer.MIN_VALUE)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> fixedTable().tryCharge(new byte[5], 1, 1, 0))
                .hasMessage("address must be 4 or 16 bytes, got 5");
    }

    @Test
    void tenMillionDistinctAddressesLeaveMemoryUnchanged() {
        AddressTable table = new AddressTable();
        long[] before = table.backingArray();
        byte[] v4 = new byte[4];
        byte[] v6 = new byte[16];
        long admitted = 0;
        for (int i = 0; i < 5_000_000; i++) {
            v4[0] = (byte) (i >>> 24); v4[1] = (byte) (i >>> 16); v4[2] = (byte) (i >>> 8); v4[3] = (byte) i;
            v6[0] = 0x20; v6[1] = 0x01;
            v6[4] = (byte) (i >>> 24); v6[5] = (byte) (i >>> 16); v6[6] = (byte) (i >>> 8); v6[7] = (byte) i;
            admitted += table.tryCharge(v4, LIMIT.intervalNanos(), LIMIT.toleranceNanos(), 0) == 0 ? 1 : 0;
            admitted += table.tryCharge(v6, LIMIT.intervalNanos(), LIMIT.toleranceNanos(), 0) == 0 ? 1 : 0;
        }
        // Same array object, same length: the only storage the table has (checked below).
        assertThat(table.backingArray()).isSameAs(before).hasSize(1 << 20);
        assertThat(table.slots()).isEqualTo(1 << 20);
        // 10M keys into 2^20 slots of burst 5: at most 5 admissions per slot, all slots used.
        assertThat(admitted).isLessThanOrEqualTo(5L * (1 << 20)).isGreaterThan(4L * (1 << 20));
        assertThat(table.occupied(0)).isLessThanOrEqualTo(1 << 20).isGreaterThan((1 << 20) - 100);
    }

    @Test
    void theTableHoldsNothingButFinalFieldsAndOneArray() {
        // Structural half of the memory claim: no field could grow with the number of addresses.
        for (Field field : AddressTable.class.getDeclaredFields()) {
            if (Modifier.isStatic(field.getModifiers())) {
                continue;
            }
            assertThat(Modifier.isFinal(field.getModifiers())).as(field.getName()).isTrue();
            assertThat(field.getType().isPrimitive() || field.getType() == long[].class)
                    .as(field.getName() + " : " + field.getType()).isTrue();
        }
    }

    @Test
    void concurrentChargesOnOneAddressNeverOvershoot() throws Exception {
        AddressTable table = fixedTable();
        Limit limit = Limit.of(10, 1_000);
        InetAddress address = ip("203.0.113.9");
        AtomicLong admitted = new AtomicLong();
        int threads = 8;
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread worker = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < 50_000; i++) {
                    if (table.tryCharge(address, limit, 42L) == 0) {
                        admitted.incrementAndGet();
                    }
                }
            });
            worker.start();
            workers.add(worker);
        }
        start.countDown();
        for (Thread worker : workers) {
            worker.join();
        }
        assertThat(admitted.get()).isEqualTo(1_000);
    }

    @Test
    void aClockPassingThroughZeroStillCountsEveryCharge() {
        AddressTable table = fixedTable();
        Limit limit = Limit.of(1, 2);
        byte[] a = {1, 2, 3, 4};
        // now = -1 s: the first charge computes tat = -1 s + 1 s = 0 exactly.
        assertThat(table.tryCharge(a, limit.intervalNanos(), limit.toleranceNanos(), -SECOND)).isZero();
        assertThat(table.tryCharge(a, limit.intervalNanos(), limit.toleranceNanos(), -SECOND)).isZero();
        assertThat(table.tryCharge(a, limit.intervalNanos(), limit.toleranceNanos(), -SECOND)).isEqualTo(SECOND);
        // At the origin of a manual clock, exactly as anywhere else.
        byte[] b = {5, 6, 7, 8};
        assertThat(table.tryCharge(b, limit.intervalNanos(), limit.toleranceNanos(), 0)).isZero();
        assertThat(table.tryCharge(b, limit.intervalNanos(), limit.toleranceNanos(), 0)).isZero();
        assertThat(table.tryCharge(b, limit.intervalNanos(), limit.toleranceNanos(), 0)).isEqualTo(SECOND);
        assertThat(table.tryCharge(b, limit.intervalNanos(), limit.toleranceNanos(), SECOND)).isZero();
    }

    @Test
    void clearRefillsEverything() {
        AddressTable table = fixedTable();
        InetAddress a = ip("192.0.2.44");
        assertThat(admitted(table, a, 10, 0)).isEqualTo(5);
        table.clear();
        assertThat(table.occupied(0)).isZero();
        assertThat(admitted(table, a, 10, 0)).isEqualTo(5);
    }
}
