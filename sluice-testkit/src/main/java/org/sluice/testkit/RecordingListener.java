package org.sluice.testkit;

import java.util.ArrayList;
import java.util.List;
import org.sluice.core.LimiterListener;

/**
 * A {@link LimiterListener} that writes down what it is told, one line per event, times
 * in whole milliseconds: {@code "admitted 2"}, {@code "refused 1 100"} (permits, then the
 * wait), {@code "waited 100"}, {@code "swept 3"}, {@code "evicted"}, {@code "contended"}.
 * For tests on one thread (the list is not synchronized); {@link #told()} is the list
 * itself, so a test may clear it between steps.
 */
public final class RecordingListener implements LimiterListener {

    private static final long MS = 1_000_000L;

    private final List<String> told = new ArrayList<>();

    /** What the listener was told, in order. */
    public List<String> told() {
        return told;
    }

    @Override
    public void admitted(long permits) {
        told.add("admitted " + permits);
    }

    @Override
    public void refused(long permits, long waitNanos) {
        told.add("refused " + permits + " " + waitNanos / MS);
    }

    @Override
    public void waited(long nanos) {
        told.add("waited " + nanos / MS);
    }

    @Override
    public void swept(int rows) {
        told.add("swept " + rows);
    }

    @Override
    public void evicted() {
        told.add("evicted");
    }

    @Override
    public void contended() {
        told.add("contended");
    }
}
