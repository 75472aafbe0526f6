package org.sluice.edge.store.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.sluice.edge.store.kafka.ControlRecords.Kind;

/** The control topic's keys: written from the one table of kinds and told apart by it when read back. */
class ControlRecordsTest {

    @Test
    void eachKindsKeyIsReadBackAsThatKindNamingWhatItWasWrittenFor() {
        assertThat(Kind.PAUSE.key("billing")).isEqualTo("pause/billing");
        assertThat(Kind.DISABLE.key("billing")).isEqualTo("disabled/billing");
        assertThat(Kind.FAILING.key("billing")).isEqualTo("failing/billing");
        assertThat(Kind.OVERRIDE.key("acme")).isEqualTo("override/acme");
        assertThat(Kind.SIGNING.key("billing")).isEqualTo("signing/billing");
        for (Kind kind : new Kind[] {Kind.PAUSE, Kind.DISABLE, Kind.FAILING, Kind.OVERRIDE, Kind.SIGNING}) {
            String key = kind.key("a/b");
            assertThat(Kind.of(key)).as(key).isEqualTo(kind);
            assertThat(kind.nameIn(key)).as(key).isEqualTo("a/b");
        }
    }

    @Test
    void anAuditKeyIsAnAuditRecordAndNamesNothing() {
        String key = ControlRecords.auditKey(1_733_000_000_123L, "w1", 7);
        assertThat(key).isEqualTo("audit/1733000000123/w1/7");
        assertThat(Kind.of(key)).isEqualTo(Kind.AUDIT);
        assertThat(Kind.of("audit/")).isEqualTo(Kind.AUDIT);
    }

    @Test
    void aKeyOutsideTheTableOrAPrefixNamingNothingIsNoRecord() {
        assertThat(Kind.of(null)).isNull();
        assertThat(Kind.of("")).isNull();
        assertThat(Kind.of("paused/billing")).isNull();
        assertThat(Kind.of("pause")).isNull();
        for (String prefixAlone : new String[] {"pause/", "disabled/", "failing/", "override/", "signing/"}) {
            assertThat(Kind.of(prefixAlone)).as(prefixAlone).isNull();
        }
    }
}
