package org.sluice.edge.config;

import java.util.List;

/**
 * {@code events:}: Sluice's own operational events ({@code destination.disabled},
 * {@code destination.recovered}, {@code dead_letter.created}, {@code store.nearly_full}), committed as hooks of the
 * built-in source {@value #SOURCE} and delivered to {@code deliver_to} like any hook.
 *
 * @param deliverTo                the destinations each event goes to; empty: no events are made
 * @param deadLetterIntervalMillis at most one {@code dead_letter.created} per destination per this
 * @param storeNearlyFullPercent   {@code store.nearly_full} when the store reaches this share of {@code store.max_bytes}
 */
public record EventsConfig(List<String> deliverTo, long deadLetterIntervalMillis, int storeNearlyFullPercent) {

    /** The source name of every event hook. */
    public static final String SOURCE = "sluice.events";
    /** The tenant of every event hook. */
    public static final String TENANT = "sluice";
    public static final long DEFAULT_DEAD_LETTER_INTERVAL_SECONDS = 60;
    public static final long MAX_DEAD_LETTER_INTERVAL_SECONDS = 86_400;
    public static final int DEFAULT_STORE_NEARLY_FULL_PERCENT = 90;

    public EventsConfig {
        deliverTo = List.copyOf(deliverTo);
        if (deadLetterIntervalMillis < 1) {
            throw new IllegalArgumentException("deadLetterIntervalMillis must be at least 1, got " + deadLetterIntervalMillis);
        }
        if (storeNearlyFullPercent < 1 || storeNearlyFullPercent > 100) {
            throw new IllegalArgumentException("storeNearlyFullPercent must be 1 to 100, got " + storeNearlyFullPercent);
        }
    }

    /** No events. */
    public static EventsConfig none() {
        return new EventsConfig(List.of(), DEFAULT_DEAD_LETTER_INTERVAL_SECONDS * 1000, DEFAULT_STORE_NEARLY_FULL_PERCENT);
    }

    public boolean enabled() {
        return !deliverTo.isEmpty();
    }
}
