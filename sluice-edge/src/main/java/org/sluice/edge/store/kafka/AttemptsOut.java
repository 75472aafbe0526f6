package org.sluice.edge.store.kafka;

import java.util.Collection;

/**
 * The node's delivery attempts still out on hooks of a partition the {@link LogFollower}
 * gives up, which it waits for after forgetting the hooks and before committing and
 * releasing the partition, so that no late copy of a {@code fifo} head reaches a receiver
 * after the next owner has sent a later hook of its (tenant, source) (docs/fleet-log.md,
 * "Membership and failover"). The server passes the dispatcher's wait.
 */
@FunctionalInterface
public interface AttemptsOut {

    /** Waits for nothing: a follower with no dispatcher of its own to wait for. */
    AttemptsOut NONE = hookIds -> { };

    /**
     * Returns once no attempt whose late arrival could reorder a {@code fifo} stream is out
     * for any of {@code hookIds}, or after the implementation's bound.
     */
    void awaitEnded(Collection<String> hookIds);
}
