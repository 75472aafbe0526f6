package org.sluice.edge.delivery.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nats.client.impl.Headers;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/**
 * {@link NatsWireHeaders} against the client's own {@link Headers}: the same pairs refused,
 * the same bytes on the wire, the same answers to reads. Names and values come from a mix
 * of printable ASCII, tab, control characters, {@code :} and characters above ASCII.
 */
class NatsWireHeadersPropertiesTest {

    @Provide
    Arbitrary<String> text() {
        return Arbitraries.strings().withChars("aZ-_:. \t\r\n\u0000\u007f~!é\u212a".toCharArray())
                .withCharRange('!', '~').ofMinLength(0).ofMaxLength(12);
    }

    @Provide
    Arbitrary<List<String>> words() {
        return text().list().ofMaxSize(8);
    }

    private static boolean clientTakes(String name, String value) {
        try {
            new Headers().add(name, value);
            return true;
        } catch (IllegalArgumentException refused) {
            return false;
        }
    }

    @Property(tries = 3000)
    void aPairIsLeftOutExactlyWhenTheClientRefusesItAndOtherwiseWrittenAsTheClientWritesIt(
            @ForAll("text") String name, @ForAll("text") String value) {
        NatsWireHeaders.Builder b = new NatsWireHeaders.Builder();
        boolean taken = b.add(name, value);
        assertThat(taken).as("name %s value %s", name, value).isEqualTo(clientTakes(name, value));
        if (taken) {
            Headers client = new Headers().add(name, value);
            NatsWireHeaders wire = b.build();
            assertThat(wire.getSerialized()).isEqualTo(client.getSerialized());
            assertThat(wire.serializedLength()).isEqualTo(client.serializedLength());
            assertThat(wire.keySet()).isEqualTo(client.keySet());
            assertThat(wire.getFirst(name)).isEqualTo(client.getFirst(name));
        }
    }

    @Property(tries = 500)
    void manyPairsReadAsTheClientsHeadersWithTheSamePairs(@ForAll("words") List<String> words) {
        NatsWireHeaders.Builder b = new NatsWireHeaders.Builder();
        Headers client = new Headers();
        for (int i = 0; i + 1 < words.size(); i += 2) {
            if (b.add(words.get(i), words.get(i + 1))) {
                client.add(words.get(i), words.get(i + 1));
            }
        }
        NatsWireHeaders wire = b.build();
        assertThat(wire.isEmpty()).isEqualTo(client.isEmpty());
        assertThat(wire.size()).isEqualTo(client.size());
        assertThat(wire.entrySet()).isEqualTo(client.entrySet());
        byte[] bytes = new byte[wire.serializedLength() + 3];
        assertThat(wire.serializeToArray(3, bytes)).isEqualTo(wire.serializedLength());
        assertThat(new String(bytes, 3, wire.serializedLength(), java.nio.charset.StandardCharsets.US_ASCII))
                .startsWith("NATS/1.0\r\n").endsWith("\r\n");
    }

    @Test
    void itIsReadOnlyAsTheClientSeesIt() {
        NatsWireHeaders.Builder b = new NatsWireHeaders.Builder();
        b.add("a", "1");
        NatsWireHeaders h = b.build();
        assertThat(h.isReadOnly()).isTrue();
        assertThat(h.isDirty()).isFalse();
        assertThatThrownBy(() -> h.add("b", "2")).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> h.put("a", "3")).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(h::clear).isInstanceOf(UnsupportedOperationException.class);
        assertThat(h.getFirst("a")).isEqualTo("1");
    }
}
