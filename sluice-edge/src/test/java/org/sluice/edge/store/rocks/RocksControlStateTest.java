package org.sluice.edge.store.rocks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.core.Clock;
import org.sluice.core.Limit;
import org.sluice.core.LimitSource;
import org.sluice.core.OverrideStoreException;
import org.sluice.core.TenantLimits;
import org.sluice.edge.store.AuditRecord;
import org.sluice.edge.store.ControlState;
import org.sluice.edge.store.DestinationPauses;
import org.sluice.edge.store.DisabledDestination;

class RocksControlStateTest {

    private static final long MAX_BODY = 8_000_000;

    @TempDir
    Path dir;
    private final AtomicLong wall = new AtomicLong(1_800_000_000_000L);
    private RocksHookStore store;
    private RocksControlState overrides;

    @BeforeEach
    void open() {
        reopen(MAX_BODY);
    }

    @AfterEach
    void close() {
        store.close();
    }

    private void reopen(long maxBody) {
        if (store != null) {
            store.close();
        }
        store = RocksHookStore.open(dir, RocksHookStore.Options.defaults().withWallClock(wall::get));
        overrides = new RocksControlState(store, maxBody);
    }

    @Test
    void aPauseAndADisableOfOneDestinationAreKeptApartAndSurviveAReopen() {
        DisabledDestination disabled = new DisabledDestination(wall.get(), "connect refused");
        overrides.setPaused("billing", true, wall.get());
        overrides.setDisabled("billing", disabled, wall.get());
        overrides.setDisabled("search", new DisabledDestination(wall.get(), "HTTP 500"), wall.get());
        overrides.setDisabled("search", null, wall.get()); // enabled again
        reopen(MAX_BODY);
        assertThat(overrides.pausedDestinations()).containsExactly("billing");
        assertThat(overrides.disabledDestinations()).containsExactly(java.util.Map.entry("billing", disabled));
        assertThat(overrides.mayBePaused("search")).isFalse();

        overrides.setPaused("billing", false, wall.get()); // a resume leaves the disable
        assertThat(overrides.mayBePaused("billing")).isTrue();
        reopen(MAX_BODY);
        assertThat(overrides.pausedDestinations()).isEmpty();
        assertThat(overrides.disabledDestinations()).containsExactly(java.util.Map.entry("billing", disabled));
        overrides.setDisabled("billing", null, wall.get());
        reopen(MAX_BODY);
        assertThat(overrides.disabledDestinations()).isEmpty();
        assertThat(overrides.mayBePaused("billing")).isFalse();
    }

    @Test
    void aRunsStartSurvivesAReopenBesideAPauseAndADisableOrAnEnableClearsIt() {
        overrides.setPaused("billing", true, wall.get());
        overrides.setFailingSince("billing", 1_000, wall.get());
        overrides.setFailingSince("search", 2_000, wall.get());
        reopen(MAX_BODY);
        assertThat(overrides.failingSince()).containsOnly(java.util.Map.entry("billing", 1_000L),
                java.util.Map.entry("search", 2_000L));
        assertThat(overrides.pausedDestinations()).containsExactly("billing");
        assertThat(overrides.mayBePaused("search")).as("a run of failures holds nothing").isFalse();

        overrides.setDisabled("billing", new DisabledDestination(wall.get(), "HTTP 503"), wall.get());
        overrides.setFailingSince("search", DestinationPauses.NOT_FAILING, wall.get());
        reopen(MAX_BODY);
        assertThat(overrides.failingSince()).as("the disable ends billing's run, search's was cleared").isEmpty();
        assertThat(overrides.pausedDestinations()).containsExactly("billing");

        overrides.setFailingSince("billing", 3_000, wall.get()); // a start written as the disable arrived
        overrides.setDisabled("billing", null, wall.get());
        reopen(MAX_BODY);
        assertThat(overrides.failingSince()).as("the enable starts afresh").isEmpty();
        assertThat(overrides.disabledDestinations()).isEmpty();
        assertThat(overrides.pausedDestinations()).containsExactly("billing");
    }

    @Test
    void overridesAndTheirAuditSurviveAReopen() {
        Limit first = Limit.of(5, 10).withMaxQueue(3);
        Limit second = Limit.of(0.5, 2).withBytesPerSecond(1000).withMaxBodyBytes(4096);
        try (ControlState.ActorScope s = overrides.actingAs("alice")) {
            overrides.put("acme", first);
        }
        wall.addAndGet(1000);
        overrides.put("acme", second);
        overrides.put("beta", Limit.of(1, 1));
        try (ControlState.ActorScope s = overrides.actingAs("bob")) {
            assertThat(overrides.delete("beta")).isTrue();
            assertThat(overrides.delete("beta")).as("already gone").isFalse();
        }

        reopen(MAX_BODY);

        assertThat(overrides.load()).containsExactly(Map.entry("acme", second));
        List<AuditRecord> audit = overrides.audit(10);
        assertThat(audit).extracting(AuditRecord::action, AuditRecord::tenant, AuditRecord::actor).containsExactly(
                org.assertj.core.groups.Tuple.tuple("delete", "beta", "bob"),
                org.assertj.core.groups.Tuple.tuple("put", "beta", "admin"),
                org.assertj.core.groups.Tuple.tuple("put", "acme", "admin"),
                org.assertj.core.groups.Tuple.tuple("put", "acme", "alice"));
        assertThat(audit.get(0).before()).isEqualTo(Map.of("rate", 1, "burst", 1));
        assertThat(audit.get(0).after()).isNull();
        assertThat(audit.get(2).before()).isEqualTo(Map.of("rate", 5, "burst", 10, "max_queue", 3));
        assertThat(Limit.parse(audit.get(2).after(), MAX_BODY)).isEqualTo(second);
        assertThat(audit.get(3).before()).isNull();
        assertThat(audit.get(3).timeMillis()).isEqualTo(1_800_000_000_000L);
        assertThat(audit.get(3).toMap()).containsEntry("time", "2027-01-15T08:00:00Z").containsEntry("actor", "alice");
        assertThat(overrides.audit(2)).as("newest first, bounded").containsExactlyElementsOf(audit.subList(0, 2));
    }

    @Test
    void auditKeepsTheOrderOfChangesMadeInOneMillisecondAcrossAReopen() {
        overrides.put("a", Limit.of(1, 1));
        overrides.put("b", Limit.of(1, 1));
        reopen(MAX_BODY);
        overrides.put("c", Limit.of(1, 1));
        assertThat(overrides.audit(10)).extracting(AuditRecord::tenant).containsExactly("c", "b", "a");
    }

    @Test
    void anInvalidStoredOverrideIsSkippedAndTheRestLoad() {
        overrides.put("acme", Limit.of(5, 10).withMaxBodyBytes(1_000_000));
        overrides.put("beta", Limit.of(5, 10));
        store.database().controlWrite(rocks -> {
            rocks.db().put(rocks.overrides(), rocks.syncWrite(), "junk".getBytes(StandardCharsets.UTF_8), "{not json".getBytes(StandardCharsets.UTF_8));
            return null;
        });

        reopen(500_000); // http.max_body_bytes lowered below acme's max_body_bytes

        assertThat(overrides.load()).containsOnlyKeys("beta");
    }

    @Test
    void aFailingStoreChangesNothingAndTheOldLimitStillApplies() {
        Limit old = Limit.of(5, 10);
        overrides.put("acme", old);
        TenantLimits limits = new TenantLimits(null, Map.of(), overrides, Clock.system());
        store.failWrites(true);

        assertThatThrownBy(() -> limits.putOverride("acme", Limit.of(1000, 1000))).isInstanceOf(OverrideStoreException.class);
        assertThatThrownBy(() -> limits.deleteOverride("acme")).isInstanceOf(OverrideStoreException.class);

        assertThat(limits.effective("acme").limit()).isEqualTo(old);
        assertThat(limits.effective("acme").source()).isEqualTo(LimitSource.OVERRIDE);
        assertThat(overrides.load()).containsExactly(Map.entry("acme", old));
        assertThat(overrides.audit(10)).hasSize(1);

        store.failWrites(false);
        limits.putOverride("acme", Limit.of(1000, 1000));
        reopen(MAX_BODY);
        assertThat(new TenantLimits(null, Map.of(), overrides, Clock.system()).effective("acme").limit()).isEqualTo(Limit.of(1000, 1000));
    }

    @Test
    void aClosedStoreFailsLoadAsAStoreError() {
        store.close();
        assertThatThrownBy(() -> overrides.load()).isInstanceOf(OverrideStoreException.class).hasMessageContaining("closed");
    }
}
