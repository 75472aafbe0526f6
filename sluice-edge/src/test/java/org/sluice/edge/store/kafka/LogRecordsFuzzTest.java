package org.sluice.edge.store.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Tag;
import org.sluice.edge.store.AuditRecord;
import org.sluice.edge.store.WorkingSet;

/**
 * Fuzz target for the readers of the fleet's log: a record on any of Sluice's topics may
 * have been written by anyone who can produce to them. From any headers (Sluice's names or
 * not, any bytes, repeated) and any value, {@link HookRecords#read} (the hooks and retry
 * topics), {@link RetryRecords#carried} (the retry topic), {@link DeadLetterIndex#entry}
 * (the dead-letter topic, its last error included) and {@link ControlRecords#audit},
 * {@link ControlRecords#map} and {@link ControlRecords#failingSince} (the control topic) either read a record or refuse it with an
 * {@link IllegalArgumentException}: no other exception, no hang, no memory beyond the record.
 */
@Tag("fuzz")
class LogRecordsFuzzTest {

    private static final List<String> NAMES = List.of(HookRecords.ID, HookRecords.TENANT, HookRecords.SOURCE,
            HookRecords.RECEIVED, HookRecords.DEDUPE, HookRecords.DESTINATION, HookRecords.REQUEST_HEADER_PREFIX,
            RetryRecords.ATTEMPTS, RetryRecords.DUE, DeadLetters.REASON, DeadLetters.ATTEMPTS, DeadLetters.DEAD_AT,
            DeadLetters.LAST_STATUS, DeadLetters.LAST_ERROR);

    @FuzzTest(maxDuration = "30s")
    void everyReaderAcceptsOrRefusesWithIllegalArgument(FuzzedDataProvider data) {
        RecordHeaders headers = new RecordHeaders();
        int n = data.consumeInt(0, 24);
        for (int i = 0; i < n; i++) {
            String name = data.consumeBoolean() ? data.pickValue(NAMES) : data.consumeString(16);
            if (data.consumeBoolean() && name.startsWith(HookRecords.REQUEST_HEADER_PREFIX)) {
                name = name + data.consumeString(12);
            }
            byte[] value = data.consumeBoolean() ? null : data.consumeBytes(data.consumeInt(0, 64));
            headers.add(name, value);
        }
        long timestamp = data.consumeLong();
        byte[] value = data.consumeBoolean() ? null : data.consumeRemainingAsBytes();
        ConsumerRecord<byte[], byte[]> record = new ConsumerRecord<>("fuzz.hooks", 0, 7, timestamp,
                TimestampType.CREATE_TIME, 0, value == null ? 0 : value.length, null, value, headers, Optional.empty());

        try {
            HookRecords.LoggedHook hook = HookRecords.read(record);
            assertThat(hook.hook().id()).isNotNull();
            Map<String, WorkingSet.Carried> carried = RetryRecords.carried(record, hook.destinations());
            assertThat(carried.size()).isLessThanOrEqualTo(hook.destinations().size());
        } catch (IllegalArgumentException refused) {
            assertThat(refused.getMessage()).isNotBlank();
        }
        try {
            DeadLetterIndex.Entry entry = DeadLetterIndex.entry(record);
            assertThat(entry.hookId()).isNotNull();
        } catch (IllegalArgumentException refused) {
            // a dead letter's record it cannot index: passed over
        }
        byte[] json = value == null ? new byte[0] : value;
        try {
            AuditRecord audit = ControlRecords.audit(json);
            assertThat(audit.action()).isNotNull();
        } catch (IllegalArgumentException refused) {
            assertThat(refused.getMessage()).isNotBlank();
        }
        try {
            assertThat(ControlRecords.map(json)).isNotNull();
        } catch (IllegalArgumentException refused) {
            assertThat(refused.getMessage()).isNotBlank();
        }
        try {
            assertThat(ControlRecords.failingSince(json)).isNotNegative();
        } catch (IllegalArgumentException refused) {
            assertThat(refused.getMessage()).isNotBlank();
        }
        assertThat(new String(json, StandardCharsets.UTF_8)).isNotNull();
    }
}
