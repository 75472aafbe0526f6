package org.sluice.edge.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OrderedHeadersTest {

    @Test
    void aRepeatedNameKeepsItsFirstPlaceAndJoinsItsValues() {
        OrderedHeaders h = OrderedHeaders.adopt(new String[] {"B", "1", "A", "2", "B", "3", "c", "4", "C", "5"}, 5);

        Map<String, String> expected = new LinkedHashMap<>();
        expected.put("B", "1, 3");
        expected.put("A", "2");
        // issue 46, point 11: a name repeated in another case is one header, under its first spelling
        // (it was stored as two, and each was forwarded)
        expected.put("c", "4, 5");
        assertThat(h).containsExactlyEntriesOf(expected).isEqualTo(expected);
        assertThat(h.hashCode()).isEqualTo(expected.hashCode());
        assertThat(h.size()).isEqualTo(3);
        assertThat(h.name(0)).isEqualTo("B");
        assertThat(h.value(0)).isEqualTo("1, 3");
        assertThat(h.get("A")).isEqualTo("2");
        assertThat(h.get("a")).isNull(); // a lookup is exact, as a map's
        assertThat(h.containsKey("c")).isTrue();
        assertThat(h.containsKey("C")).isFalse();
    }

    @Test
    void itIsReadOnlyAndKeptByAPendingHookAsIs() {
        OrderedHeaders h = OrderedHeaders.adopt(new String[] {"A", "1", null, null}, 1);

        assertThatThrownBy(() -> h.put("B", "2")).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> h.entrySet().iterator().next().setValue("x")).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> h.name(1)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThat(new PendingHook("t", "s", null, 0L, h, new byte[0]).headers()).isSameAs(h);
    }
}
