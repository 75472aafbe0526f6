package org.sluice.edge.store.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;
import org.sluice.edge.store.PendingHook;
import org.sluice.edge.store.StoredHook;

class HookRecordsTest {

    private static final UUID ID = UUID.fromString("0193a1b2-c3d4-7e5f-8a6b-0123456789ab");

    @Test
    void aHookReadBackIsTheHookWritten() {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Content-Type", "application/json");
        headers.put("webhook-id", "msg_1");
        byte[] body = "{\"a\":1}".getBytes(StandardCharsets.UTF_8);
        PendingHook pending = new PendingHook("acme", "stripe", "evt_1", 1_733_000_000_123L, headers, body,
                List.of("app", "audit"));

        ProducerRecord<byte[], byte[]> produced = HookRecords.record("sluice.hooks", ID, pending);
        assertThat(produced.timestamp()).isEqualTo(ID.getMostSignificantBits() >>> 16);
        assertThat(produced.key()).isEqualTo(HookRecords.key("acme", "stripe"));

        HookRecords.LoggedHook read = HookRecords.read(consumed(produced));
        StoredHook hook = read.hook();
        assertThat(hook.id()).isEqualTo(ID.toString());
        assertThat(hook.tenant()).isEqualTo("acme");
        assertThat(hook.source()).isEqualTo("stripe");
        assertThat(hook.dedupeKey()).isEqualTo("evt_1");
        assertThat(hook.receivedAtMillis()).isEqualTo(1_733_000_000_123L);
        assertThat(hook.body()).isEqualTo(body);
        assertThat(List.copyOf(hook.headers().entrySet())).containsExactlyElementsOf(headers.entrySet());
        assertThat(read.destinations()).containsExactly("app", "audit");
    }

    @Test
    void noDedupeKeyAndNoDestinationsReadBackAsNone() {
        PendingHook pending = new PendingHook("t", "s", null, 5L, Map.of(), new byte[0]);
        HookRecords.LoggedHook read = HookRecords.read(consumed(HookRecords.record("x.hooks", ID, pending)));
        assertThat(read.hook().dedupeKey()).isNull();
        assertThat(read.destinations()).isEmpty();
        assertThat(read.hook().headers()).isEmpty();
    }

    @Test
    void theIngestTraceparentTravelsWithTheHookAndARecordWithoutOneReadsWithNone() {
        String traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        PendingHook traced = new PendingHook("t", "s", null, 5L, Map.of("X-A", "1"), new byte[0], List.of("app"),
                traceparent);
        ProducerRecord<byte[], byte[]> produced = HookRecords.record("x.hooks", ID, traced);
        assertThat(produced.headers().lastHeader(HookRecords.TRACEPARENT).value())
                .isEqualTo(traceparent.getBytes(StandardCharsets.UTF_8));
        HookRecords.LoggedHook read = HookRecords.read(consumed(produced));
        assertThat(read.hook().traceparent()).isEqualTo(traceparent);
        assertThat(read.hook().headers()).containsExactly(Map.entry("X-A", "1")); // not taken for a request header
        // copied on (a retry record, a follower's working set) it is kept
        assertThat(PendingHook.of(read.hook(), read.destinations()).traceparent()).isEqualTo(traceparent);

        PendingHook untraced = new PendingHook("t", "s", null, 5L, Map.of(), new byte[0], List.of("app"));
        ProducerRecord<byte[], byte[]> old = HookRecords.record("x.hooks", ID, untraced);
        assertThat(old.headers().lastHeader(HookRecords.TRACEPARENT)).isNull();
        assertThat(HookRecords.read(consumed(old)).hook().traceparent()).isNull();
    }

    @Test
    void keysOfDifferentPairsDiffer() {
        assertThat(HookRecords.key("a", "bc")).isNotEqualTo(HookRecords.key("ab", "c"));
    }

    @Test
    void aRecordWithoutTheHookHeadersIsRefusedNamingItsPlace() {
        ConsumerRecord<byte[], byte[]> foreign = new ConsumerRecord<>("sluice.hooks", 3, 17L, new byte[0], new byte[0]);
        assertThatThrownBy(() -> HookRecords.read(foreign))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("sluice.hooks-3@17");
    }

    private static ConsumerRecord<byte[], byte[]> consumed(ProducerRecord<byte[], byte[]> r) {
        return new ConsumerRecord<>(r.topic(), 0, 0L, r.timestamp(), TimestampType.CREATE_TIME,
                r.key().length, r.value().length, r.key(), r.value(), r.headers(), Optional.empty());
    }
}
