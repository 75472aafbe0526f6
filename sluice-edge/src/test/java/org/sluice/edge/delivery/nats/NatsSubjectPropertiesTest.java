package org.sluice.edge.delivery.nats;

import org.sluice.edge.delivery.targets.NatsTarget;
import static org.assertj.core.api.Assertions.assertThat;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/**
 * A NATS destination's subject, filled per hook and checked before each publish
 * ({@link NatsTarget#fill}, {@link NatsTarget#isPublishSubject}), both written as one pass
 * over the text: the check agrees with its definition (tokens split on dots), and filling
 * replaces the template's own placeholders and nothing a value brings.
 */
class NatsSubjectPropertiesTest {

    @Provide
    Arbitrary<String> subjects() {
        return Arbitraries.strings().withChars("ab.*> \t\u0000\u007fé{}".toCharArray()).ofMaxLength(10);
    }

    /** The definition: dot-separated tokens, none empty, none {@code *} or {@code >}, no white space or control character. */
    private static boolean byDefinition(String subject) {
        if (subject.isEmpty()) {
            return false;
        }
        for (String token : subject.split("\\.", -1)) {
            if (token.isEmpty() || token.equals("*") || token.equals(">")
                    || token.chars().anyMatch(c -> c <= ' ' || c == 0x7f)) {
                return false;
            }
        }
        return true;
    }

    @Property(tries = 5000)
    void thePublishSubjectCheckIsItsDefinition(@ForAll("subjects") String subject) {
        assertThat(NatsTarget.isPublishSubject(subject)).as(subject).isEqualTo(byDefinition(subject));
    }

    @Property(tries = 2000)
    void fillingIsReplacingEachPlaceholderOnce(@ForAll("subjects") String a, @ForAll("subjects") String b,
                                               @ForAll("subjects") String tenant, @ForAll("subjects") String source) {
        String template = a + "{tenant}" + b + "{source}" + a;
        String t = tenant.isEmpty() ? NatsTarget.NO_TENANT : tenant;
        if (!(a + b).contains("{")) { // no other brace in the template's text: plain replacement is the answer
            assertThat(NatsTarget.fill(template, tenant, source)).isEqualTo(a + t + b + source + a);
        }
    }

    @Test
    void aValueThatLooksLikeAPlaceholderIsNotFilledAgain() {
        assertThat(NatsTarget.fill("hooks.{tenant}.{source}", "{source}", "gh")).isEqualTo("hooks.{source}.gh");
        assertThat(NatsTarget.fill("hooks.{tenant}.{source}", null, "{tenant}")).isEqualTo("hooks._.{tenant}");
        assertThat(NatsTarget.fill("{{tenant}}.{x}.{source", "t", "s")).isEqualTo("{t}.{x}.{source");
        assertThat(NatsTarget.fill("plain", "t", "s")).isEqualTo("plain");
    }
}
