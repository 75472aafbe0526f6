package org.sluice.edge.store.rocks;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;
import org.sluice.edge.store.OrderedHeaders;
import org.sluice.edge.store.PendingHook;
import org.sluice.edge.store.StoredHook;

class CodecPropertiesTest {

    @Property(tries = 300)
    void aHookRecordReadsBackAsWritten(@ForAll String tenant, @ForAll String source, @ForAll String key,
                                       @ForAll boolean hasKey, @ForAll long receivedAt, @ForAll long msb, @ForAll long lsb,
                                       @ForAll @Size(max = 8) List<String> headerNames, @ForAll byte[] body) {
        Map<String, String> headers = new LinkedHashMap<>();
        for (int i = 0; i < headerNames.size(); i++) {
            headers.put(headerNames.get(i), "v" + i + headerNames.get(i));
        }
        PendingHook h = new PendingHook(tenant, source, hasKey ? key : null, receivedAt, headers, body);
        UUID id = new UUID(msb, lsb);
        byte[] record = Codec.hook(new UUID(0, 0), h);
        Codec.setHookId(java.nio.ByteBuffer.wrap(record), 0, id);

        StoredHook read = Codec.hook(record);

        assertThat(read.id()).isEqualTo(id.toString());
        assertThat(read.tenant()).isEqualTo(tenant);
        assertThat(read.source()).isEqualTo(source);
        assertThat(read.dedupeKey()).isEqualTo(hasKey ? key : null);
        assertThat(read.receivedAtMillis()).isEqualTo(receivedAt);
        assertThat(read.headers()).containsExactlyEntriesOf(headers);
        assertThat(read.body()).isEqualTo(body);
        // what the stored-bytes count reads of a record, without decoding the rest
        assertThat(Codec.tenantOf(record)).isEqualTo(tenant);
        assertThat(Codec.bodyLengthOf(record)).isEqualTo(body.length);
    }

    @Property(tries = 100)
    void aTraceparentIsKeptAfterTheBodyAndARecordWithoutOneReadsWithNone(@ForAll String tenant, @ForAll byte[] body,
                                                                       @ForAll boolean traced) {
        String traceparent = traced ? "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" : null;
        PendingHook h = new PendingHook(tenant, "s", null, 1L, Map.of("a", "b"), body, List.of(), traceparent);
        byte[] record = Codec.hook(new UUID(1, 2), h);
        StoredHook read = Codec.hook(record);
        assertThat(read.traceparent()).isEqualTo(traceparent);
        assertThat(read.body()).isEqualTo(body);
        assertThat(Codec.bodyLengthOf(record)).isEqualTo(body.length);
        assertThat(Codec.tenantOf(record)).isEqualTo(tenant);
        // a record written before the traceparent was kept is the same bytes without it at the end
        byte[] old = Codec.hook(new UUID(1, 2), new PendingHook(tenant, "s", null, 1L, Map.of("a", "b"), body));
        assertThat(java.util.Arrays.copyOf(record, old.length)).isEqualTo(old);
        assertThat(Codec.hook(old).traceparent()).isNull();
    }

    @Property(tries = 300)
    void dedupeKeysOfDifferentTriplesDiffer(@ForAll String t1, @ForAll String s1, @ForAll String k1,
                                           @ForAll String t2, @ForAll String s2, @ForAll String k2) {
        boolean same = t1.equals(t2) && s1.equals(s2) && k1.equals(k2);
        assertThat(java.util.Arrays.equals(Codec.dedupeKey(t1, s1, k1), Codec.dedupeKey(t2, s2, k2))).isEqualTo(same);
    }

    @Property(tries = 300)
    void aRecordFromOrderedHeadersInADirectBufferIsTheSameBytes(@ForAll String tenant, @ForAll String key,
                                                                @ForAll @Size(max = 8) List<String> headerNames,
                                                                @ForAll byte[] body, @ForAll int offset) {
        Map<String, String> map = new LinkedHashMap<>();
        String[] fields = new String[2 * headerNames.size()];
        for (int i = 0; i < headerNames.size(); i++) {
            String value = "v" + i + headerNames.get(i);
            map.merge(headerNames.get(i), value, (a, b) -> a + ", " + b);
            fields[2 * i] = headerNames.get(i);
            fields[2 * i + 1] = value;
        }
        UUID id = UUID.randomUUID();
        byte[] expected = Codec.hook(id, new PendingHook(tenant, "src", key, 5L, map, body));
        PendingHook ordered = new PendingHook(tenant, "src", key, 5L, OrderedHeaders.adopt(fields, headerNames.size()), body);
        assertThat(ordered.headers()).containsExactlyEntriesOf(map);

        int at = Math.floorMod(offset, 64);
        java.nio.ByteBuffer direct = java.nio.ByteBuffer.allocateDirect(at + Codec.hookSize(ordered));
        direct.position(at);
        Codec.putHook(direct, new UUID(0, 0), ordered);
        assertThat(direct.remaining()).isZero();
        Codec.setHookId(direct, at, id);
        byte[] written = new byte[expected.length];
        direct.get(at, written);
        assertThat(written).isEqualTo(expected);
    }
}
