package org.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class TenantLimitsTest {

    private static final long MS = 1_000_000L;
    private static final long SECOND = 1_000_000_000L;

    private final TestClock clock = new TestClock(123 * SECOND);

    private static int admitted(TenantLimits limits, String tenant, long bytes, int attempts) {
        int n = 0;
        for (int i = 0; i < attempts; i++) {
            if (limits.hit(tenant, bytes).admitted()) {
                n++;
            }
        }
        return n;
    }

    @Test
    void precedenceIsOverrideThenConfigThenDefault() {
        Limit def = Limit.of(1, 1);
        Limit acme = Limit.of(10, 10);
        Limit over = Limit.of(100, 100);
        TenantLimits limits = new TenantLimits(def, Map.of("acme", acme, "beta", acme),
                new InMemoryOverrideStore(Map.of("acme", over)), clock);
        assertThat(limits.effective("acme")).isEqualTo(new EffectiveLimit(over, LimitSource.OVERRIDE));
        assertThat(limits.effective("beta")).isEqualTo(new EffectiveLimit(acme, LimitSource.CONFIG));
        assertThat(limits.effective("gamma")).isEqualTo(new EffectiveLimit(def, LimitSource.DEFAULT));
        assertThat(limits.effective("gamma")).isSameAs(limits.effective("delta"));
        assertThat(LimitSource.OVERRIDE.wireName()).isEqualTo("override");
        assertThat(LimitSource.CONFIG.wireName()).isEqualTo("config");
        assertThat(LimitSource.DEFAULT.wireName()).isEqualTo("default");
        assertThat(LimitSource.NONE.wireName()).isEqualTo("none");
    }

    @Test
    void noLimitAnywhereIsUnlimited() {
        TenantLimits limits = new TenantLimits(null, Map.of(), new InMemoryOverrideStore(), clock);
        assertThat(limits.effective("x")).isSameAs(EffectiveLimit.UNLIMITED);
        assertThat(limits.effective("x").unlimited()).isTrue();
        assertThat(limits.effective("x").source()).isEqualTo(LimitSource.NONE);
        assertThat(admitted(limits, "x", 1_000_000, 10_000)).isEqualTo(10_000);
        assertThat(limits.remaining("x")).isEqualTo(Double.POSITIVE_INFINITY);
        assertThat(limits.bodyLimit("x")).isEmpty();
        assertThat(limits.buckets()).isZero();
    }

    @Test
    void theFirstLimitFoundAppliesWholeAndKeysNeverMerge() {
        Limit def = Limit.of(1, 1).withMaxBodyBytes(500).withBytesPerSecond(10);
        Limit acme = Limit.of(5, 3);
        TenantLimits limits = new TenantLimits(def, Map.of("acme", acme), new InMemoryOverrideStore(), clock);
        assertThat(limits.bodyLimit("acme")).isEmpty();
        assertThat(limits.bodyLimit("other")).hasValue(500);
        // acme has no byte bucket although the default has one: huge bodies pass on bytes
        assertThat(admitted(limits, "acme", 1_000_000_000L, 10)).isEqualTo(3);
        limits.putOverride("acme", Limit.of(1, 1).withMaxBodyBytes(7));
        assertThat(limits.bodyLimit("acme")).hasValue(7);
    }

    @Test
    void exactlyBurstThenOnePerInterval() {
        TenantLimits limits = new TenantLimits(Limit.of(2, 4), Map.of(), new InMemoryOverrideStore(), clock);
        assertThat(admitted(limits, "t", 0, 100)).isEqualTo(4);
        TenantDecision refused = limits.hit("t", 0);
        assertThat(refused.admitted()).isFalse();
        assertThat(refused.scope()).isEqualTo(TenantDecision.Scope.TENANT);
        assertThat(refused.scope().wireName()).isEqualTo("tenant");
        assertThat(refused.waitNanos()).isEqualTo(500 * MS);
        assertThat(refused.retryAfterMillis()).isEqualTo(500);
        clock.advanceMillis(499);
        assertThat(limits.hit("t", 0).waitNanos()).isEqualTo(MS);
        clock.advanceMillis(1);
        assertThat(limits.hit("t", 0)).isSameAs(TenantDecision.ADMITTED);
        assertThat(limits.remaining("t")).isEqualTo(0.0);
        clock.advanceMillis(750);
        assertThat(limits.remaining("t")).isEqualTo(1.5);
    }

    @Test
    void hookAdmittedOnCountThenRefusedOnBytesHasSpentItsHookToken() {
        // 10 hooks/s burst 3; 1000 bytes/s burst 1000
        Limit limit = Limit.of(10, 3).withBytesPerSecond(1000).withBurstBytes(1000);
        TenantLimits limits = new TenantLimits(limit, Map.of(), new InMemoryOverrideStore(), clock);
        assertThat(limits.hit("t", 800).admitted()).isTrue();
        assertThat(limits.remaining("t")).isEqualTo(2.0);
        TenantDecision onBytes = limits.hit("t", 300);
        assertThat(onBytes.admitted()).isFalse();
        assertThat(onBytes.scope()).isEqualTo(TenantDecision.Scope.TENANT_BYTES);
        assertThat(onBytes.scope().wireName()).isEqualTo("tenant_bytes");
        assertThat(onBytes.waitNanos()).isEqualTo(100 * MS); // 100 bytes over at 1 ms per byte
        assertThat(limits.remaining("t")).as("the refused hook spent its token").isEqualTo(1.0);
        assertThat(limits.hit("t", 0).admitted()).isTrue(); // zero bytes: hook bucket only
        TenantDecision onCount = limits.hit("t", 1);
        assertThat(onCount.scope()).isEqualTo(TenantDecision.Scope.TENANT);
    }

    @Test
    void oversizeBodyIsAdmittedOnlyIntoAFullByteBucketAndEmptiesIt() {
        Limit limit = Limit.of(1000, 1000).withBytesPerSecond(1000).withBurstBytes(1000);
        TenantLimits limits = new TenantLimits(limit, Map.of(), new InMemoryOverrideStore(), clock);
        assertThat(limits.hit("t", 5000)).isSameAs(TenantDecision.ADMITTED);
        // exactly empty, no debt beyond: one byte waits exactly one byte's worth
        assertThat(limits.hit("t", 1).waitNanos()).isEqualTo(MS);
        clock.advanceMillis(500);
        TenantDecision notFull = limits.hit("t", 5000);
        assertThat(notFull.scope()).isEqualTo(TenantDecision.Scope.TENANT_BYTES);
        assertThat(notFull.waitNanos()).as("until the bucket is full again").isEqualTo(500 * MS);
        clock.advanceMillis(500);
        assertThat(limits.hit("t", 5000).admitted()).isTrue();
    }

    @Test
    void byteBucketDefaultsToOneSecondsWorth() {
        Limit limit = Limit.of(1000, 1000).withBytesPerSecond(2000);
        TenantLimits limits = new TenantLimits(limit, Map.of(), new InMemoryOverrideStore(), clock);
        assertThat(admitted(limits, "t", 100, 100)).isEqualTo(20);
    }

    @Test
    void overridesResetTheTenantsBuckets() {
        InMemoryOverrideStore store = new InMemoryOverrideStore();
        Limit config = Limit.of(1, 2).withBytesPerSecond(10).withBurstBytes(10);
        TenantLimits limits = new TenantLimits(null, Map.of("acme", config, "beta", config), store, clock);
        assertThat(admitted(limits, "acme", 5, 10)).isEqualTo(2);
        assertThat(admitted(limits, "beta", 5, 10)).isEqualTo(2);
        limits.putOverride("acme", Limit.of(1, 3));
        assertThat(store.load()).containsEntry("acme", Limit.of(1, 3));
        assertThat(limits.effective("acme").source()).isEqualTo(LimitSource.OVERRIDE);
        assertThat(admitted(limits, "acme", 5, 10)).isEqualTo(3);
        assertThat(admitted(limits, "beta", 5, 10)).as("other tenants keep their state").isZero();
        assertThat(limits.deleteOverride("acme")).isTrue();
        assertThat(store.load()).isEmpty();
        assertThat(limits.effective("acme")).isEqualTo(new EffectiveLimit(config, LimitSource.CONFIG));
        assertThat(admitted(limits, "acme", 5, 10)).as("reset again on delete").isEqualTo(2);
        assertThat(limits.deleteOverride("acme")).isFalse();
        assertThat(admitted(limits, "acme", 5, 10)).as("a missing override resets nothing").isZero();
    }

    @Test
    void storeFailureLeavesMemoryUnchanged() {
        AtomicBoolean broken = new AtomicBoolean();
        InMemoryOverrideStore backing = new InMemoryOverrideStore(Map.of("acme", Limit.of(5, 5)));
        OverrideStore flaky = new OverrideStore() {
            @Override
            public Map<String, Limit> load() {
                return backing.load();
            }

            @Override
            public void put(String tenant, Limit limit) {
                if (broken.get()) {
                    throw new OverrideStoreException("disk gone");
                }
                backing.put(tenant, limit);
            }

            @Override
            public boolean delete(String tenant) {
                if (broken.get()) {
                    throw new OverrideStoreException("disk gone");
                }
                return backing.delete(tenant);
            }
        };
        TenantLimits limits = new TenantLimits(Limit.of(1, 1), Map.of(), flaky, clock);
        assertThat(admitted(limits, "acme", 0, 3)).isEqualTo(3);
        broken.set(true);
        assertThatThrownBy(() -> limits.putOverride("acme", Limit.of(100, 100)))
                .isInstanceOf(OverrideStoreException.class).hasMessage("disk gone");
        assertThatThrownBy(() -> limits.putOverride("beta", Limit.of(100, 100)))
                .isInstanceOf(OverrideStoreException.class);
        assertThatThrownBy(() -> limits.deleteOverride("acme")).isInstanceOf(OverrideStoreException.class);
        assertThat(limits.effective("acme")).isEqualTo(new EffectiveLimit(Limit.of(5, 5), LimitSource.OVERRIDE));
        assertThat(limits.effective("beta").source()).isEqualTo(LimitSource.DEFAULT);
        assertThat(admitted(limits, "acme", 0, 10)).as("buckets not reset either").isEqualTo(2);
        assertThat(limits.list().tenants()).extracting(TenantLimits.Entry::tenant).containsExactly("acme");
    }

    @Test
    void listIsSortedAndOverridesShadowConfig() {
        Limit def = Limit.of(1, 1);
        TenantLimits limits = new TenantLimits(def, Map.of("zed", Limit.of(2, 2), "acme", Limit.of(3, 3)),
                new InMemoryOverrideStore(Map.of("acme", Limit.of(4, 4), "mid", Limit.of(5, 5))), clock);
        TenantLimits.Listing listing = limits.list();
        assertThat(listing.defaultLimit()).isEqualTo(def);
        assertThat(listing.tenants()).containsExactly(
                new TenantLimits.Entry("acme", Limit.of(4, 4), LimitSource.OVERRIDE),
                new TenantLimits.Entry("mid", Limit.of(5, 5), LimitSource.OVERRIDE),
                new TenantLimits.Entry("zed", Limit.of(2, 2), LimitSource.CONFIG));
        assertThat(new TenantLimits(null, Map.of(), new InMemoryOverrideStore(), clock).list().defaultLimit()).isNull();
    }

    @Test
    void sweepDropsFullBucketsOfBothKinds() {
        Limit limit = Limit.of(1, 5).withBytesPerSecond(100);
        TenantLimits limits = new TenantLimits(limit, Map.of(), new InMemoryOverrideStore(), clock);
        for (int i = 0; i < 1000; i++) {
            limits.hit("tenant-" + i, 10);
        }
        assertThat(limits.buckets()).isEqualTo(2000);
        clock.advanceNanos(10 * SECOND);
        int removed = 0;
        for (int i = 0; i < 16; i++) {
            removed += limits.sweepNext(clock.nanoTime());
        }
        assertThat(removed).isEqualTo(2000);
        assertThat(limits.buckets()).isZero();
    }

    @Test
    void badArguments() {
        TenantLimits limits = new TenantLimits(null, Map.of(), new InMemoryOverrideStore(), clock);
        assertThatThrownBy(() -> limits.hit("t", -1)).hasMessage("bytes must be at least 0, got -1");
        assertThatThrownBy(() -> limits.putOverride("", Limit.of(1, 1)))
                .hasMessage("tenant must be a non-empty string, got \"\"");
        BucketTable one = new BucketTable();
        assertThatThrownBy(() -> new TenantLimits(null, Map.of(), new InMemoryOverrideStore(), one, one, clock))
                .hasMessage("hookBuckets and byteBuckets must be two different tables");
        assertThatThrownBy(() -> TenantDecision.refused(TenantDecision.Scope.TENANT, 0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new EffectiveLimit(null, LimitSource.CONFIG)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void concurrentHitsOnOneTenantAdmitExactlyBurstWithAFrozenClock() throws Exception {
        Limit limit = Limit.of(5, 500).withBytesPerSecond(1_000_000).withBurstBytes(1_000_000);
        TenantLimits limits = new TenantLimits(limit, Map.of(), new InMemoryOverrideStore(), clock);
        java.util.concurrent.atomic.AtomicLong admitted = new java.util.concurrent.atomic.AtomicLong();
        java.util.concurrent.atomic.AtomicLong onBytes = new java.util.concurrent.atomic.AtomicLong();
        java.util.concurrent.CountDownLatch start = new java.util.concurrent.CountDownLatch(1);
        java.util.List<Thread> workers = new java.util.ArrayList<>();
        for (int t = 0; t < 8; t++) {
            Thread worker = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < 20_000; i++) {
                    TenantDecision d = limits.hit("acme", 4_000);
                    if (d.admitted()) {
                        admitted.incrementAndGet();
                    } else if (d.scope() == TenantDecision.Scope.TENANT_BYTES) {
                        onBytes.incrementAndGet();
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
        // 500 hook tokens; 1,000,000 bytes admit exactly 250 bodies of 4,000; the other 250 hooks spent on bytes
        assertThat(admitted.get()).isEqualTo(250);
        assertThat(onBytes.get()).isEqualTo(250);
    }
}
