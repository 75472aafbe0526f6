package org.sluice.edge.store.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.sluice.edge.delivery.KafkaBrokersExtension;
import org.sluice.edge.store.CommitResult;
import org.sluice.edge.store.HookPage;
import org.sluice.edge.store.HookSummary;
import org.sluice.edge.store.PendingHook;
import org.sluice.edge.store.StoredHook;

/**
 * {@code GET /v1/hooks} on the fleet's log ({@link HookPages}), against one real broker:
 * hooks accepted by two nodes, the second's clock 3 s behind the first's, over twelve
 * sources spread on four partitions, are listed by id (so by time, not by acceptance),
 * each exactly once across pages of either order; a page ends at its byte bound; oldest
 * first lists only settled hooks; a cursor the log does not hold is refused.
 */
class HookPagesTest {

    @RegisterExtension
    static final KafkaBrokersExtension brokers = KafkaBrokersExtension.brokers(1);

    private static KafkaLogSettings settings(String node) {
        return new KafkaLogSettings(node, List.of(brokers.bootstrapServers()), "pages", 4, 1, 2, 3000, Map.of(),
                86_400_000L);
    }

    private static PendingHook hook(String source, int n) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Content-Type", "application/json");
        return new PendingHook("acme", source, null, 1_733_000_000_000L + n, headers,
                ("{\"n\":" + n + "}").getBytes(StandardCharsets.UTF_8), List.of("app"));
    }

    @Test
    void everyNodesHooksArePagedOnceByIdInEitherOrder() throws Exception {
        AtomicLong wall = new AtomicLong(System.currentTimeMillis() - 300_000); // the broker refuses stamps far ahead
        try (KafkaHookLog a = KafkaHookLog.open(settings("a"), wall::get, ProduceListener.NONE);
             KafkaHookLog b = KafkaHookLog.open(settings("b"), () -> wall.get() - 3000, ProduceListener.NONE)) {
            Map<String, byte[]> bodies = new HashMap<>();
            List<String> accepted = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                KafkaHookLog node = i % 2 == 0 ? a : b;
                PendingHook h = hook("s" + (i % 12), i);
                CommitResult r = node.commit(List.of(h)).get(0);
                assertThat(r.status()).isEqualTo(CommitResult.Status.ACCEPTED);
                accepted.add(r.id());
                bodies.put(r.id(), h.body());
                wall.addAndGet(500); // b's hooks are stamped before a's previous ones: acceptance order is not id order
            }
            Set<Integer> partitions = new HashSet<>();
            for (ConsumerRecord<byte[], byte[]> r : brokers.readAll(List.of("pages.hooks"), rs -> rs.size() >= 40)) {
                partitions.add(r.partition());
            }
            assertThat(partitions).as("the hooks' partitions").hasSizeGreaterThan(1);
            List<String> byId = new ArrayList<>(accepted);
            byId.sort(null);
            assertThat(byId).as("the nodes' clocks make id order differ from acceptance").isNotEqualTo(accepted);

            wall.set(System.currentTimeMillis()); // every hook is settled now (minutes old)
            List<String> listed = new ArrayList<>();
            int pages = 0;
            String cursor = null;
            do {
                HookPage page = b.after(cursor, 7, Long.MAX_VALUE);
                for (StoredHook h : page.hooks()) {
                    listed.add(h.id());
                    assertThat(h.body()).as(h.id()).isEqualTo(bodies.get(h.id()));
                    assertThat(h.tenant()).isEqualTo("acme");
                }
                assertThat(page.hooks()).hasSizeLessThanOrEqualTo(7);
                cursor = page.next();
                pages++;
            } while (cursor != null);
            assertThat(listed).as("oldest first, every hook once").containsExactlyElementsOf(byId);
            assertThat(pages).isEqualTo(6);

            // a page ends at its byte bound, with at least one hook, and says where to go on
            HookPage small = a.after(byId.get(9), 30, 1);
            assertThat(small.hooks()).extracting(StoredHook::id).containsExactly(byId.get(10));
            assertThat(small.next()).isEqualTo(byId.get(10));

            List<String> newest = new ArrayList<>();
            String before = null;
            do {
                HookSummary.Page page = a.newest(before, 6);
                page.hooks().forEach(h -> {
                    newest.add(h.id());
                    assertThat(h.bodyBytes()).isEqualTo(bodies.get(h.id()).length);
                });
                before = page.next();
            } while (before != null);
            List<String> reversed = new ArrayList<>(byId);
            java.util.Collections.reverse(reversed);
            assertThat(newest).as("newest first, every hook once").containsExactlyElementsOf(reversed);

            // a hook accepted now is listed newest first at once, oldest first once settled
            String fresh = a.commit(List.of(hook("s0", 99))).get(0).id();
            assertThat(b.newest(null, 1).hooks()).extracting(HookSummary::id).containsExactly(fresh);
            HookPage last = a.after(byId.get(39), 10, Long.MAX_VALUE);
            assertThat(last.hooks()).isEmpty();
            assertThat(last.next()).isNull();
            wall.addAndGet(new HookPages(new LogAccess(settings("c"), null, wall::get)).slackMs() + 1);
            assertThat(a.after(byId.get(39), 10, Long.MAX_VALUE).hooks()).as("settled on a's clock")
                    .extracting(StoredHook::id).containsExactly(fresh);

            // cursors the log does not hold
            UUID known = UUID.fromString(byId.get(3));
            String never = new UUID(known.getMostSignificantBits(), known.getLeastSignificantBits() ^ (1L << 60)).toString();
            assertThatThrownBy(() -> b.after(never, 10)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(never);
            assertThatThrownBy(() -> b.newest(never, 10)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> b.after("not-an-id", 10)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> b.after(null, 0)).isInstanceOf(IllegalArgumentException.class);
        }
    }
}
