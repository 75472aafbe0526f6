package org.sluice.edge.store;

import java.util.Objects;

/**
 * What became of one submitted hook. A refusal is a value, never an exception.
 *
 * <ul>
 *   <li>{@link Status#ACCEPTED}: committed with fsync; {@link #id()} is its new id (answer 202).</li>
 *   <li>{@link Status#DUPLICATE}: its (tenant, source, dedupe key) was committed within the
 *       dedupe TTL, or an earlier copy is in the same batch; {@link #id()} is that hook's id (answer 200).</li>
 *   <li>{@link Status#OVERLOAD}: refused before any write: the node's queue was full, the
 *       intake was closing, or its batch had not started by the commit deadline (answer 503 overload).</li>
 *   <li>{@link Status#STORE_UNAVAILABLE}: the batch's write failed; nothing in it was acknowledged
 *       (answer 503 store_unavailable).</li>
 * </ul>
 *
 * @param status what happened
 * @param id     the hook's id for ACCEPTED and DUPLICATE, else null
 */
public record CommitResult(Status status, String id) {

    public enum Status { ACCEPTED, DUPLICATE, OVERLOAD, STORE_UNAVAILABLE }

    public static final CommitResult OVERLOAD = new CommitResult(Status.OVERLOAD, null);
    public static final CommitResult STORE_UNAVAILABLE = new CommitResult(Status.STORE_UNAVAILABLE, null);

    public CommitResult {
        Objects.requireNonNull(status, "status");
        boolean needsId = status == Status.ACCEPTED || status == Status.DUPLICATE;
        if (needsId != (id != null)) {
            throw new IllegalArgumentException("CommitResult " + status + (needsId ? " needs an id" : " takes no id") + ", got " + id);
        }
    }

    public static CommitResult accepted(String id) {
        return new CommitResult(Status.ACCEPTED, id);
    }

    public static CommitResult duplicate(String id) {
        return new CommitResult(Status.DUPLICATE, id);
    }
}
