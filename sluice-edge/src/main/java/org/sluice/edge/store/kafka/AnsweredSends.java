package org.sluice.edge.store.kafka;

import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * The pass over writes the follower sent without waiting for them: {@link RetryMoves} keeps
 * its hooks being moved to the retry topic, {@link OrderedCarry} its held records being
 * carried forward, each in a map from what the write is for to the producer's future. Each
 * commit pass takes the answered ones out and acts on them; the rest wait for a later pass,
 * so the follower's thread never blocks on the log here.
 *
 * <p>Not thread-safe: the maps are the follower's thread's.
 */
final class AnsweredSends {

    private AnsweredSends() {
    }

    /**
     * Takes out of {@code sends}, in its order, every write the log has answered, and gives
     * its key to {@code acknowledged}, or with the cause to {@code failed}; writes not yet
     * answered stay.
     */
    static <K> void settle(Map<K, Future<RecordMetadata>> sends, Consumer<K> acknowledged,
                           BiConsumer<K, Throwable> failed) {
        for (Iterator<Map.Entry<K, Future<RecordMetadata>>> it = sends.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<K, Future<RecordMetadata>> e = it.next();
            if (!e.getValue().isDone()) {
                continue;
            }
            it.remove();
            try {
                e.getValue().get();
            } catch (ExecutionException x) {
                failed.accept(e.getKey(), x.getCause());
                continue;
            } catch (InterruptedException x) { // cannot happen: the future is done
                Thread.currentThread().interrupt();
                continue;
            }
            acknowledged.accept(e.getKey());
        }
    }
}
