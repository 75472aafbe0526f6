package org.sluice.edge.intake;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.edge.store.HookPage;
import org.sluice.edge.store.HookStore;
import org.sluice.edge.store.StoredHook;
import org.sluice.edge.store.rocks.RocksHookStore;
import org.sluice.testkit.ChildJvm;

/**
 * Crash safety across processes: a child JVM commits hooks under concurrent load and
 * prints every acknowledgement; this process kills it mid-load and reopens the store.
 */
class IntakeCrashTest {

    private static final Duration WAIT = Duration.ofSeconds(60);
    /** Kill after this many acknowledgements; well under ChildJvm.MAX_LINES so no printed line is dropped. */
    private static final int ACKS_BEFORE_SIGNAL = 1500;

    @TempDir
    Path dir;

    @Test
    void sigkillMidLoadLosesNoAcknowledgedHookAndStoresNoKeyTwice() {
        List<String> lines;
        try (ChildJvm child = startChild()) {
            child.awaitLine(l -> l.startsWith("ready"), WAIT);
            awaitAcks(child);
            signal(child, true);
            assertThat(child.waitFor(WAIT)).isEqualTo(137);
            lines = child.stdoutLines();
        }
        assertThat(lines).doesNotContain("closed");
        checkStore(lines);
    }

    @Test
    void sigtermFlushesTheQueueClosesCleanlyAndLosesNothing() {
        List<String> lines;
        List<String> err;
        try (ChildJvm child = startChild()) {
            child.awaitLine(l -> l.startsWith("ready"), WAIT);
            awaitAcks(child);
            signal(child, false);
            assertThat(child.waitFor(WAIT)).isEqualTo(143);
            lines = child.stdoutLines();
            err = child.stderrLines();
        }
        assertThat(lines).as("the shutdown hook closed intake and store; stderr: %s", err).contains("closed");
        assertThat(lines.indexOf("closed")).as("every acknowledgement came before the store closed").isEqualTo(lines.size() - 1);
        checkStore(lines);
    }

    /**
     * SIGKILL or SIGTERM through the process handle. Not {@link ChildJvm#kill()} /
     * {@link ChildJvm#terminate()}: those go through {@link Process#destroy()}, which on
     * Linux also closes our ends of the child's stdout and stderr, so lines the child
     * prints after the signal (or that are still in the pipe) would be lost.
     */
    private static void signal(ChildJvm child, boolean kill) {
        ProcessHandle handle = ProcessHandle.of(child.pid()).orElseThrow();
        assertThat(kill ? handle.destroyForcibly() : handle.destroy()).isTrue();
    }

    private ChildJvm startChild() {
        return ChildJvm.builder(LoadChild.class).jvmArgs("-Xmx256m").args(dir.toString(), "4", "16").start();
    }

    private static void awaitAcks(ChildJvm child) {
        child.awaitLine(l -> l.startsWith("acked ") && l.endsWith(" " + ACKS_BEFORE_SIGNAL), WAIT);
    }

    private void checkStore(List<String> lines) {
        assertThat(lines.size()).as("no line fell out of the child's output buffer").isLessThan(ChildJvm.MAX_LINES);
        Map<String, String> printed = new HashMap<>(); // id -> key, for acked and dup lines
        long acked = 0;
        for (String line : lines) {
            String[] parts = line.split(" ", -1);
            if (parts[0].equals("acked") || parts[0].equals("dup")) {
                printed.put(parts[1], parts[2]);
                acked += parts[0].equals("acked") ? 1 : 0;
            }
        }
        assertThat(acked).isGreaterThanOrEqualTo(ACKS_BEFORE_SIGNAL);
        try (HookStore store = RocksHookStore.open(dir)) {
            Map<String, String> storedKeyToId = new HashMap<>();
            Map<String, String> storedIdToKey = new HashMap<>();
            String after = null;
            do {
                HookPage page = store.after(after, 1000);
                for (StoredHook h : page.hooks()) {
                    String previous = storedKeyToId.put(h.dedupeKey(), h.id());
                    assertThat(previous).as("dedupe key %s stored twice", h.dedupeKey()).isNull();
                    storedIdToKey.put(h.id(), h.dedupeKey());
                }
                after = page.next();
            } while (after != null);
            for (Map.Entry<String, String> e : printed.entrySet()) {
                assertThat(storedIdToKey.get(e.getKey())).as("acknowledged id %s (key %s) is in the store", e.getKey(), e.getValue())
                        .isEqualTo(e.getValue());
            }
        }
    }
}
