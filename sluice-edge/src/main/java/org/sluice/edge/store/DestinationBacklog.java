package org.sluice.edge.store;

/**
 * What one destination has waiting and given up.
 *
 * @param pending                deliveries not yet delivered nor dead
 * @param dead                   dead letters kept
 * @param oldestPendingAgeMillis how long ago the oldest hook with a pending delivery to it was committed; 0 when none
 */
public record DestinationBacklog(long pending, long dead, long oldestPendingAgeMillis) {
}
