package org.sluice.edge.store.rocks;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.UUID;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.AlphaChars;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.StringLength;
import org.sluice.edge.store.DeliveryRow;
import org.sluice.edge.store.DeliveryState;
import org.sluice.edge.store.DisabledDestination;

class DeliveryCodecPropertiesTest {

    @Provide
    Arbitrary<DeliveryRow> rows() {
        Arbitrary<UUID> ids = Combinators.combine(Arbitraries.longs(), Arbitraries.longs()).as(UUID::new);
        Arbitrary<String> dest = Arbitraries.strings().ofMinLength(1).ofMaxLength(20);
        Arbitrary<Integer> status = Arbitraries.integers().between(100, 599).injectNull(0.3);
        Arbitrary<String> error = Arbitraries.strings().ofMaxLength(40).injectNull(0.5);
        Arbitrary<Long> delivered = Arbitraries.longs().injectNull(0.5);
        Arbitrary<String> reason = Arbitraries.of(DeliveryCodec.DEAD_REASONS).injectNull(0.5);
        return Combinators.combine(ids, dest, Arbitraries.of(DeliveryState.class), Arbitraries.integers().greaterOrEqual(0),
                        Arbitraries.longs(), Arbitraries.longs(), status, error)
                .flatAs((id, d, state, attempts, next, scheduled, st, err) -> Combinators.combine(delivered, reason, Arbitraries.longs())
                        .as((del, why, deadAt) -> new DeliveryRow(id.toString(), d, state, attempts, next, scheduled, next ^ scheduled,
                                st, err, del, why, why == null ? null : deadAt)));
    }

    @Property(tries = 500)
    void aDeliveryRowReadsBackAsWritten(@ForAll("rows") DeliveryRow row) {
        byte[] value = DeliveryCodec.row(UUID.fromString(row.hookId()), row);

        assertThat(DeliveryCodec.row(row.destination(), value)).isEqualTo(row);
    }

    @Property(tries = 500)
    void aDestinationRecordReadsBackAsWrittenWhicheverTailsItHas(@ForAll boolean paused, @ForAll boolean disabled,
                                                               @ForAll @LongRange(min = 0) long at,
                                                               @ForAll @AlphaChars @StringLength(max = 40) String error,
                                                               @ForAll @LongRange(min = -1) long failingSince) {
        DisabledDestination d = disabled ? new DisabledDestination(at, error) : null;
        byte[] value = DeliveryCodec.destination(paused, d, failingSince, 7);

        assertThat(DeliveryCodec.destinationPaused(value)).isEqualTo(paused);
        assertThat(DeliveryCodec.destinationDisabled(value)).isEqualTo(d);
        assertThat(DeliveryCodec.destinationFailingSince(value)).isEqualTo(failingSince);
    }

    @Property(tries = 500)
    void dueKeysOfOneDestinationSortByDueTimeThenSequence(@ForAll @StringLength(min = 1, max = 10) String d,
                                                         @ForAll @LongRange(min = 0) long due1, @ForAll @LongRange(min = 0) long seq1,
                                                         @ForAll @LongRange(min = 0) long due2, @ForAll @LongRange(min = 0) long seq2) {
        int bytes = Integer.signum(Arrays.compareUnsigned(DeliveryCodec.dueKey(d, due1, seq1), DeliveryCodec.dueKey(d, due2, seq2)));
        int expected = due1 != due2 ? Integer.signum(Long.compare(due1, due2)) : Integer.signum(Long.compare(seq1, seq2));

        assertThat(bytes).isEqualTo(expected);
    }

    @Property(tries = 500)
    void aDestinationsPrefixHoldsOnlyItsOwnKeys(@ForAll @StringLength(min = 1, max = 6) String d1,
                                               @ForAll @StringLength(min = 1, max = 6) String d2, @ForAll long due, @ForAll long seq) {
        boolean inDue = DeliveryCodec.startsWith(DeliveryCodec.dueKey(d2, due, seq), DeliveryCodec.destinationPrefix(d1))
                && DeliveryCodec.dueKey(d2, due, seq).length == DeliveryCodec.destinationPrefix(d1).length + 16;
        boolean inIndex = DeliveryCodec.startsWith(DeliveryCodec.indexKey(DeliveryState.DEAD, d2, seq),
                DeliveryCodec.indexPrefix(DeliveryState.DEAD, d1));

        assertThat(inDue).isEqualTo(d1.equals(d2));
        assertThat(inIndex).isEqualTo(d1.equals(d2));
    }
}
