package org.sluice.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisCommandExecutionException;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/**
 * A reply entry is input from the network: every shape {@code admit.lua} does not write
 * is {@link AdmitReply.Malformed} (the call is then a failure and answered node-local),
 * never an exception and never a wrong answer.
 */
class AdmitReplyTest {

    private static AdmitReply parse(Object... entry) {
        return AdmitReply.parse(Arrays.asList(entry), "tok");
    }

    private static AdmitReply.Answer answer(FleetAnswer a) {
        return new AdmitReply.Answer(a);
    }

    @Test
    void theShapesTheScriptWritesAreReadAsTheirAnswers() {
        assertThat(parse(1L)).isEqualTo(answer(new FleetAnswer.Admitted("tok")));
        assertThat(AdmitReply.parse(List.of(1L), null)).isEqualTo(answer(new FleetAnswer.Admitted(null)));
        assertThat(parse(2L, "hook-9")).isEqualTo(answer(new FleetAnswer.Duplicate("hook-9")));
        assertThat(parse(3L, 1_500L)).isEqualTo(answer(new FleetAnswer.Pending(1_500)));
        assertThat(parse(4L, 1L, 1L)).isEqualTo(answer(new FleetAnswer.RateLimited(FleetAnswer.Scope.TENANT, 1)));
        assertThat(parse(4L, 2L, 1_000L)).isEqualTo(answer(new FleetAnswer.RateLimited(FleetAnswer.Scope.TENANT_BYTES, 1)));
        assertThat(parse(4L, 2L, 1_001L)).isEqualTo(answer(new FleetAnswer.RateLimited(FleetAnswer.Scope.TENANT_BYTES, 2)));
        assertThat(parse(4L, 1L, Long.MAX_VALUE))
                .isEqualTo(answer(new FleetAnswer.RateLimited(FleetAnswer.Scope.TENANT, Long.MAX_VALUE / 1000 + 1)));
        assertThat(parse(0L, "WRONGTYPE Operation against a key holding the wrong kind of value"))
                .isEqualTo(new AdmitReply.Refused("WRONGTYPE Operation against a key holding the wrong kind of value"));
    }

    @Test
    void hostileShapesAreMalformedNotExceptionsNorAnswers() {
        List<Object> hostile = Arrays.asList(
                null, "1", 1L, List.of(), Arrays.asList((Object) null),
                List.of("1"), List.of(1), List.of(1.0), List.of(List.of(1L)),
                List.of(1L, "extra"),
                List.of(1L + (1L << 32)), // read as an int this was "1", admitted
                List.of(-1L), List.of(5L), List.of(Long.MIN_VALUE),
                List.of(2L), List.of(2L, 5L), List.of(2L, List.of("id")), List.of(2L, "id", "more"),
                List.of(3L), List.of(3L, 0L), List.of(3L, -5L), List.of(3L, "5"),
                List.of(4L, 1L), List.of(4L, 3L, 10L), List.of(4L, 0L, 10L), List.of(4L, 1L, 0L), List.of(4L, 1L, -1L),
                List.of(4L, "1", 10L), List.of(4L, 1L, "10"), List.of(4L, 1L, 10L, 10L),
                List.of(0L), List.of(0L, 7L),
                List.of(new RedisCommandExecutionException("ERR nested")),
                new RedisCommandExecutionException("ERR top"));
        for (Object entry : hostile) {
            assertThat(AdmitReply.parse(entry, "tok")).as(String.valueOf(entry)).isInstanceOf(AdmitReply.Malformed.class);
        }
    }

    @Test
    void aMalformedEntryIsQuotedShortly() {
        AdmitReply r = AdmitReply.parse(List.of("x".repeat(10_000)), null);
        assertThat(((AdmitReply.Malformed) r).what()).startsWith("unexpected admit reply entry [xxx").hasSizeLessThan(200);
    }

    @Provide
    Arbitrary<Object> entries() {
        Arbitrary<Object> atom = Arbitraries.oneOf(
                Arbitraries.longs().map(l -> (Object) l),
                Arbitraries.longs().between(-2, 6).map(l -> (Object) l),
                Arbitraries.strings().ofMaxLength(8).map(s -> (Object) s),
                Arbitraries.just(null));
        Arbitrary<Object> list = atom.list().ofMaxSize(4).map(l -> (Object) l);
        return Arbitraries.oneOf(atom, list, list.list().ofMaxSize(3).map(l -> (Object) l));
    }

    @Property(tries = 3_000)
    void anyShapeIsReadWithoutThrowing(@ForAll("entries") Object entry) {
        AdmitReply r = AdmitReply.parse(entry, "tok");
        assertThat(r).isNotNull();
        if (r instanceof AdmitReply.Answer a && a.answer() instanceof FleetAnswer.Pending p) {
            assertThat(p.retryAfterMs()).isPositive();
        }
        if (r instanceof AdmitReply.Answer a && a.answer() instanceof FleetAnswer.RateLimited rl) {
            assertThat(rl.waitMs()).isPositive();
        }
    }
}
