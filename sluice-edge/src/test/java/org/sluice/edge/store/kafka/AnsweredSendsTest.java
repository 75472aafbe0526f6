package org.sluice.edge.store.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.Test;

/** The follower's pass over its unawaited writes: answered ones leave the map, each told once; the rest stay. */
class AnsweredSendsTest {

    @Test
    void answeredWritesAreTakenOutAndToldOnceWhileUnansweredOnesStay() {
        CompletableFuture<RecordMetadata> pending = new CompletableFuture<>();
        Map<String, Future<RecordMetadata>> sends = new LinkedHashMap<>();
        sends.put("a", CompletableFuture.completedFuture(null));
        sends.put("b", CompletableFuture.failedFuture(new TimeoutException("no leader")));
        sends.put("c", pending);
        sends.put("d", CompletableFuture.completedFuture(null));
        List<String> acknowledged = new ArrayList<>();
        List<String> failed = new ArrayList<>();

        AnsweredSends.settle(sends, acknowledged::add, (key, cause) -> failed.add(key + ": " + cause.getMessage()));
        assertThat(acknowledged).containsExactly("a", "d");
        assertThat(failed).containsExactly("b: no leader");
        assertThat(sends).containsOnlyKeys("c");

        AnsweredSends.settle(sends, acknowledged::add, (key, cause) -> failed.add(key));
        assertThat(sends).containsOnlyKeys("c");
        assertThat(acknowledged).hasSize(2);

        pending.complete(null);
        AnsweredSends.settle(sends, acknowledged::add, (key, cause) -> failed.add(key));
        assertThat(acknowledged).containsExactly("a", "d", "c");
        assertThat(failed).hasSize(1);
        assertThat(sends).isEmpty();
    }
}
