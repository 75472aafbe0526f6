package org.sluice.edge.store.kafka;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The delivery group's lag over the hooks and retry topics, the fleet's unfinished records:
 * per partition, from the group's committed offset (the oldest unfinished record, or the
 * first not read; its earliest offset when never committed) to the log's end, summed. Read
 * with the admin client (three calls, each bounded by {@code timeout_ms}) at most once per
 * {@value #CACHE_MS} ms; -1 when it cannot be read.
 *
 * <p>Thread-safe.
 */
final class GroupLag {

    private static final Logger LOG = LoggerFactory.getLogger(GroupLag.class);
    static final long CACHE_MS = 2_000;

    private final LogAccess log;
    /** The last reading, or null; two callers at once may both read (no I/O under a lock). */
    private volatile Reading last;

    private record Reading(long atMillis, long records) {
    }

    GroupLag(LogAccess log) {
        this.log = log;
    }

    long records() {
        long now = log.now();
        Reading r = last;
        if (r != null && now - r.atMillis() < CACHE_MS) {
            return r.records();
        }
        long records;
        try {
            records = read(log.clients().admin());
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            LOG.debug("the delivery group's lag cannot be read: {}", e.toString());
            records = -1;
        }
        last = new Reading(now, records);
        return records;
    }

    private long read(Admin admin) throws Exception {
        KafkaLogSettings settings = log.settings();
        long wait = settings.timeoutMs();
        Map<String, TopicDescription> topics = admin.describeTopics(List.of(settings.hooksTopic(), settings.retryTopic()))
                .allTopicNames().get(wait, TimeUnit.MILLISECONDS);
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        Map<TopicPartition, OffsetSpec> earliest = new HashMap<>();
        topics.values().forEach(d -> d.partitions().forEach(p -> {
            latest.put(new TopicPartition(d.name(), p.partition()), OffsetSpec.latest());
            earliest.put(new TopicPartition(d.name(), p.partition()), OffsetSpec.earliest());
        }));
        Map<TopicPartition, OffsetAndMetadata> committed = admin
                .listConsumerGroupOffsets(settings.groupId())
                .partitionsToOffsetAndMetadata().get(wait, TimeUnit.MILLISECONDS);
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends =
                admin.listOffsets(latest).all().get(wait, TimeUnit.MILLISECONDS);
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> starts =
                admin.listOffsets(earliest).all().get(wait, TimeUnit.MILLISECONDS);
        long lag = 0;
        for (Map.Entry<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> e : ends.entrySet()) {
            OffsetAndMetadata at = committed.get(e.getKey());
            long from = Math.max(at == null ? 0 : at.offset(), starts.get(e.getKey()).offset());
            lag += Math.max(0, e.getValue().offset() - from);
        }
        return lag;
    }
}
