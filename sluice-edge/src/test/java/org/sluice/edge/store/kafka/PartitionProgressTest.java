package org.sluice.edge.store.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import org.junit.jupiter.api.Test;

/** The records a follower holds per partition, and records superseded by a copy carried forward. */
class PartitionProgressTest {

    private static PartitionProgress holding(String... ids) {
        PartitionProgress p = new PartitionProgress();
        for (int i = 0; i < ids.length; i++) {
            p.track(10 + i, ids[i], 1_000 + i, 10 + i);
        }
        return p;
    }

    @Test
    void aSupersededRecordCountsAsFinishedWhateverItsHook() {
        PartitionProgress p = holding("a", "b", "c");
        p.supersede(10);
        p.supersede(11);
        Set<String> finished = Set.of(); // no hook is finished: only superseding lets the offset move

        assertThat(p.advance(finished::contains)).isEqualTo(12);
        assertThat(p.size()).isEqualTo(1);
        assertThat(p.heads(10)).containsExactly("c");
    }

    @Test
    void aSupersededRecordBehindAnUnfinishedOneWaitsAndIsLeftOutOfTheHeads() {
        PartitionProgress p = holding("a", "b", "c");
        p.supersede(11);

        assertThat(p.advance(id -> false)).isEqualTo(10);
        assertThat(p.heads(10)).containsExactly("a", "c");
        assertThat(p.live()).extracting(PartitionProgress.Held::offset).containsExactly(10L, 12L);
        assertThat(p.live()).extracting(PartitionProgress.Held::stampMillis).containsExactly(1_000L, 1_002L);
        assertThat(p.advance(id -> id.equals("a"))).isEqualTo(12);
    }

    @Test
    void anOffsetNotHeldIsNotSuperseded() {
        PartitionProgress p = holding("a", "b");
        p.advance(id -> id.equals("a")); // 10 dropped
        p.supersede(10);
        p.supersede(12); // not read yet
        p.track(12, "c", 1_002, 12);

        assertThat(p.advance(id -> false)).isEqualTo(11);
        assertThat(p.heads(10)).containsExactly("b", "c");
    }
}
