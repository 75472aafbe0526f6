package org.sluice.edge.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.concurrent.Executor;
import org.junit.jupiter.api.Test;
import org.sluice.core.InMemoryOverrideStore;
import org.sluice.core.Limit;
import org.sluice.core.QueueShares;
import org.sluice.core.TenantLimits;
import org.sluice.edge.store.CommitResult;
import org.sluice.testkit.ManualClock;

/**
 * The one admission call of a hook, node-local: each variant of {@link Admission} and what
 * is held until {@link Admission.Admitted#settle}. The clock is frozen, so every count is
 * exact. (The fleet scope's answers are covered end to end with a real Redis by
 * {@code server.FleetScopeTest}.)
 */
class TenantAdmissionTest {

    /** Runs nothing: without the fleet every answer is complete at once, and nothing may be handed over. */
    private static final Executor NEVER = task -> {
        throw new AssertionError("node-local admission handed work over");
    };

    private final ManualClock clock = new ManualClock(0);
    private final QueueShares shares = new QueueShares();

    private TenantAdmission gate(Limit limit, boolean shadow) {
        TenantLimits limits = new TenantLimits(limit, Map.of(), new InMemoryOverrideStore(), clock);
        return new TenantAdmission(limits, shares, null, null, 1 << 20, shadow);
    }

    private static Admission admit(TenantAdmission gate, long bytes) {
        return gate.admit("acme", "a", null, bytes, NEVER).toCompletableFuture().getNow(null);
    }

    @Test
    void anAdmittedHookHoldsItsQueueShareUntilSettledOnce() {
        TenantAdmission gate = gate(Limit.of(10, 10).withMaxQueue(1), false);

        Admission first = admit(gate, 2);
        assertThat(first.kind()).isEqualTo(Admission.Kind.ADMITTED);
        Admission.Admitted admitted = (Admission.Admitted) first;
        assertThat(admitted.shadowRefusals()).isEmpty();
        assertThat(shares.hooks("acme")).isEqualTo(1);
        assertThat(admitted.rateLimit().policy()).isEqualTo("\"tenant\";q=10;w=1");
        assertThat(admitted.rateLimit().current()).isEqualTo("\"tenant\";r=9;t=1");

        Admission second = admit(gate, 2); // the queue of one is full
        assertThat(second.kind()).isEqualTo(Admission.Kind.REFUSED);
        Admission.Refused refused = (Admission.Refused) second;
        assertThat(refused.refusal().scope()).isEqualTo(RefusalScope.TENANT_OVERLOAD);
        assertThat(refused.rateLimit()).isNotNull();

        admitted.settle(CommitResult.accepted("id-1"));
        assertThat(shares.hooks("acme")).isZero();
        assertThatThrownBy(() -> admitted.settle(null)).isInstanceOf(IllegalStateException.class);
        assertThat(admit(gate, 2).kind()).isEqualTo(Admission.Kind.ADMITTED);
    }

    @Test
    void anEmptyBucketRefusesWithTheTenantScopeAndTheWait() {
        TenantAdmission gate = gate(Limit.of(1, 1), false);
        ((Admission.Admitted) admit(gate, 0)).settle(null);

        Admission.Refused refused = (Admission.Refused) admit(gate, 0);
        assertThat(refused.refusal()).isEqualTo(new Refusal(RefusalScope.TENANT, 1_000_000_000L));
        assertThat(refused.rateLimit().current()).isEqualTo("\"tenant\";r=0;t=1");
    }

    @Test
    void inShadowModeEveryRefusalIsHandedBackAndTheHookAdmitted() {
        TenantAdmission gate = gate(Limit.of(1, 1).withMaxQueue(1), true);
        Admission.Admitted first = (Admission.Admitted) admit(gate, 0);

        Admission.Admitted second = (Admission.Admitted) admit(gate, 0); // its bucket is empty and the queue full
        assertThat(second.shadowRefusals()).extracting(Refusal::scope)
                .containsExactly(RefusalScope.TENANT, RefusalScope.TENANT_OVERLOAD);
        second.settle(null); // it held no share: nothing to give back
        assertThat(shares.hooks("acme")).isEqualTo(1);
        first.settle(null);
        assertThat(shares.hooks("acme")).isZero();
    }

    @Test
    void aTenantAtItsStoreShareIsRefusedBeforeItsBucketIsChargedAndOthersAreNot() {
        Map<String, Long> stored = new java.util.HashMap<>(Map.of("acme", 999L));
        TenantLimits limits = new TenantLimits(Limit.of(1, 2), Map.of(), new InMemoryOverrideStore(), clock);
        StoreShares storage = new StoreShares(t -> t.equals("acme") ? 1000L : 0L, t -> stored.getOrDefault(t, 0L));
        TenantAdmission gate = new TenantAdmission(limits, shares, null, null, 1 << 20, false, storage);

        ((Admission.Admitted) admit(gate, 0)).settle(null); // 999 < 1000: admitted
        stored.put("acme", 1000L);
        Admission.Refused refused = (Admission.Refused) admit(gate, 0);
        assertThat(refused.refusal()).isEqualTo(new Refusal(RefusalScope.TENANT_STORAGE, 5_000_000_000L));
        assertThat(refused.rateLimit().current()).as("the refusal charged no hook").isEqualTo("\"tenant\";r=1;t=1");
        assertThat(gate.admit("other", "a", null, 0, NEVER).toCompletableFuture().getNow(null).kind())
                .isEqualTo(Admission.Kind.ADMITTED);

        TenantAdmission shadow = new TenantAdmission(limits, shares, null, null, 1 << 20, true, storage);
        Admission.Admitted let = (Admission.Admitted) admit(shadow, 0);
        assertThat(let.shadowRefusals()).extracting(Refusal::scope).containsExactly(RefusalScope.TENANT_STORAGE);
        let.settle(null);
    }

    @Test
    void aDuplicateTheStoreKnowsCarriesTheRateLimitFieldsAndAnUnlimitedTenantNone() {
        Admission.Duplicate limited = gate(Limit.of(10, 10), false).knownDuplicate("acme", "id-0");
        assertThat(limited.kind()).isEqualTo(Admission.Kind.DUPLICATE);
        assertThat(limited.hookId()).isEqualTo("id-0");
        assertThat(limited.rateLimit().current()).isEqualTo("\"tenant\";r=10;t=0");

        TenantAdmission unlimited = gate(null, false);
        assertThat(unlimited.knownDuplicate("acme", "id-0").rateLimit()).isNull();
        Admission.Admitted admitted = (Admission.Admitted) admit(unlimited, 5);
        assertThat(admitted.rateLimit()).isNull();
        admitted.settle(CommitResult.accepted("id-1"));
    }
}
