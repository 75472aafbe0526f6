/**
 * Outbound delivery: handing accepted hooks on to HTTP destinations, at least once, paced
 * and retried.
 *
 * <p>Owns what an attempt sends and how its answer is judged: the headers of an outbound
 * request ({@link org.sluice.edge.delivery.OutboundHeaders}) and their Standard Webhooks
 * signature ({@link org.sluice.edge.delivery.WebhookSigner}), the
 * retry schedule and the verdict on each attempt ({@link org.sluice.edge.delivery.RetryPolicy},
 * {@link org.sluice.edge.delivery.RetryAfter}), and the circuit breaker of one destination
 * ({@link org.sluice.edge.delivery.DestinationBreaker}), and paced replays of a time range
 * ({@link org.sluice.edge.delivery.Replays}, which the admin API starts).
 *
 * <p>May use {@code sluice-core} (clock, limiters) and {@code org.sluice.edge.store} (the
 * delivery rows). Bad settings throw {@link org.sluice.edge.delivery.SettingsException}, which
 * the config loader (which may use this package, not the other way round) reports as its own
 * errors. Nothing here knows about the ingest HTTP server, intake or the admin
 * API; they may call in, not the other way round.
 *
 * <p>The {@link org.sluice.edge.delivery.Dispatcher} runs it: the server starts one when destinations are configured (see
 * {@code docs/delivery.md}). Its parts, one job each: an {@code Outlet} per destination (slots,
 * pacing, breaker, fifo heads), the {@code Driver} thread, the {@code CommitStarter} (first
 * attempts at commit, and the one wake-up route for new deliveries), the {@code AnswerRecorder}
 * (each attempt's outcome into the ledger) and {@code OutletActivity} (what the admin API shows:
 * {@link org.sluice.edge.delivery.DeliveryActivity}). Words: a delivery's <em>state</em>
 * (pending, delivered, dead) and a destination's stored <em>counts</em> are the store's; what
 * the dispatcher is doing for a destination now is its <em>activity</em>.
 */
package org.sluice.edge.delivery;
