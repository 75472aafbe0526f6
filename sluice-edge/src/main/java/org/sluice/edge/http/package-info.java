/**
 * The ingest listener's HTTP room: the Netty handlers of a connection's pipeline, in request
 * order ({@code RequestSyntaxHandler} to {@code HookHandler}; the checks before the body share
 * {@code ExchangeHandler}), the request's state ({@code IngestExchange}), the writing of its
 * one response ({@code ResponseWriter}) and every response body ({@code Responses}), then the
 * hook's stage after the body ({@code HookStage}: on the connection's event loop for a small
 * body, on a worker for a big one).
 *
 * <p>May use: {@code admission} (the limits a handler charges, the one admission call of a
 * hook and the refusals they return), {@code config}, {@code verify}, {@code dedupe},
 * {@code store} (values only), {@code stats} (the per-second outcome counts), {@code log}
 * and Netty. Never {@code sluice-fleet} (admission reads the
 * fleet's answers and hands back an {@code admission.Admission}), never {@code server}, {@code admin} or {@code cli}
 * (ArchitectureTest): what
 * the handlers need from the node's state comes in through narrow interfaces
 * ({@code HookSink}, {@code admission.TenantGate}). Handlers and their constructors are
 * public only so that {@code server} can assemble the pipeline, and {@code RequestProgress}
 * (where the request being read stands, for a read deadline) so that the admin listener's
 * deadlines follow requests the same way; everything else stays package-private.
 */
package org.sluice.edge.http;
