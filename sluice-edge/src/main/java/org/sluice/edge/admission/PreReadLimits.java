package org.sluice.edge.admission;

import java.net.InetAddress;

/**
 * The node's CPU protection, charged before a byte of the body is read (a body's bytes are
 * checked then and charged once received). Each charge is one bucket and answers 0
 * (admitted) or the wait in nanoseconds (refused, nothing charged). Thread-safe and
 * lock-free: called on the event loops.
 */
public interface PreReadLimits {

    /** One hook against the client address's bucket ({@code rate_limits.per_ip}). */
    long chargeAddress(InetAddress client, long now);

    /**
     * What {@link #chargeAddress} would answer now, charging nothing: 0 when it would admit,
     * else the same wait a refused charge returns. The refusal fast path
     * ({@code http.RefusalFastPath}) asks this first and leaves every admitted request to
     * the pipeline's one charge.
     */
    long addressWait(InetAddress client, long now);

    /** One hook against the node's bucket ({@code rate_limits.node}). */
    long chargeNode(long now);

    /** {@code bytes} of body against the source's bucket ({@code rate_limits.sources}). */
    long chargeSourceBytes(String source, long bytes, long now);

    /**
     * What {@link #chargeSourceBytes} would answer now, charging nothing: the check of a
     * declared length before the body is read (the bytes are charged once they have arrived).
     */
    long sourceBytesWait(String source, long bytes, long now);
}
