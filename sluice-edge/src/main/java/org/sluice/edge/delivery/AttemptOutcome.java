package org.sluice.edge.delivery;

/**
 * What one attempt came to, as a {@link Transport} reports it: the result the retry policy
 * judges, and a short text for {@code last_error} when the hook was not delivered (null
 * when it was). Not to be confused with the ingest side's outcome of a request.
 *
 * @param result what came back (an answer, an acknowledgement, a failure)
 * @param error  why it was not delivered, before redaction; null when delivered
 */
public record AttemptOutcome(AttemptResult result, String error) {
}
