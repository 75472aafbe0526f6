package org.sluice.edge.settings;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A {@link ConfigWord} enum is spelled in lower case and read by {@link Section#choice(String, Enum)}. */
class ConfigWordTest {

    /** An enum of this test's own, so that the spellings checked are the interface's and no config enum's. */
    enum Speed implements ConfigWord {
        SLOW,
        VERY_FAST
    }

    @Test
    void aConstantIsSpelledAsItsNameInLowerCase() {
        assertThat(Speed.SLOW.configName()).isEqualTo("slow");
        assertThat(Speed.VERY_FAST.configName()).isEqualTo("very_fast");
    }

    @Test
    void choiceReadsTheSpellingAndGivesTheDefaultWhenTheKeyIsAbsent() {
        Problems problems = new Problems();
        Section s = Section.of(problems, "engine", Map.of("speed", "very_fast"), List.of("speed", "other"));
        assertThat(s.choice("speed", Speed.SLOW)).isEqualTo(Speed.VERY_FAST);
        assertThat(s.choice("other", Speed.SLOW)).isEqualTo(Speed.SLOW);
        assertThat(problems.list()).isEmpty();
    }

    @Test
    void aWordOutsideTheEnumIsAProblemListingEverySpellingInOrder() {
        Problems problems = new Problems();
        Section s = Section.of(problems, "engine", Map.of("speed", "VERY_FAST"), List.of("speed"));
        assertThat(s.choice("speed", Speed.SLOW)).isEqualTo(Speed.SLOW);
        assertThat(problems.list()).containsExactly("engine.speed must be one of slow, very_fast, got \"VERY_FAST\"");
    }
}
