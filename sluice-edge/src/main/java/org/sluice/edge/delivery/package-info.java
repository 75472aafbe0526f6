/**
 * Outbound delivery: handing accepted hooks on to destinations (HTTP endpoints, Kafka
 * topics, NATS JetStream subjects), at least once, paced and retried.
 *
 * <p>Owns the {@link org.sluice.edge.delivery.Dispatcher} (what to send and when), the
 * retry schedule and the verdict on each attempt ({@link org.sluice.edge.delivery.RetryPolicy},
 * {@link org.sluice.edge.delivery.RetryAfter}), the circuit breaker of one destination
 * ({@link org.sluice.edge.delivery.DestinationBreaker}), paced replays of a time range
 * ({@link org.sluice.edge.delivery.Replays}, which the admin API starts), what every attempt
 * carries ({@link org.sluice.edge.delivery.OutboundHeaders}, signed by
 * {@link org.sluice.edge.delivery.WebhookSigner}), and the transport seam: the
 * {@link org.sluice.edge.delivery.Destination} with its sealed
 * {@link org.sluice.edge.delivery.targets.Target}, the
 * {@link org.sluice.edge.delivery.Transport} that carries its attempts and reports an
 * {@link org.sluice.edge.delivery.AttemptOutcome}, the
 * {@link org.sluice.edge.delivery.TransportFactory} that makes one transport per kind of
 * target, and the {@link org.sluice.edge.delivery.TargetReader} that reads its keys. A
 * destination's transformation comes from {@code route} ({@code Transform}); the HTTP room
 * applies it to each attempt.
 *
 * <p>Each transport is a room that uses this one: {@code delivery.http},
 * {@code delivery.kafka}, {@code delivery.nats}, each holding its config reader and its
 * transport; the broker ones share {@code delivery.broker} (the table of attempts out). The
 * targets themselves live below this package, in {@code delivery.targets} (a sealed type's
 * records must share its package on Java 17's class path). This package names no room: the
 * server's assembly builds the transports through a {@code TransportFactory}.
 * {@code docs/delivery.md} ("Adding a transport") gives the recipe.
 *
 * <p>Pacing: a paced destination's {@code Pacer} is this node's own limiter, or, under
 * {@code store.kind: kafka} with the fleet's Redis, permits leased once per pass through
 * the {@link org.sluice.edge.delivery.FleetPacing} seam, which the server implements over
 * the fleet client (this package names no Redis type). An {@code adaptive} destination's
 * pace ({@code AdaptivePace}, AIMD on its answers, {@link org.sluice.edge.delivery.AdaptiveRate}
 * its range) sets the rate its bucket, or its lease of the fleet's, is charged at.
 *
 * <p>The {@link org.sluice.edge.delivery.Dispatcher} runs it: the server starts one when destinations are configured (see
 * {@code docs/delivery.md}). Its parts, one job each: an {@code Outlet} per destination (slots,
 * pacing, breaker, fifo heads; its meters an {@code OutletMeters}), the {@code Driver} thread, the {@code CommitStarter} (first
 * attempts at commit, and the one wake-up route for new deliveries), the {@code AnswerRecorder}
 * (each attempt's outcome into the ledger) and {@code OutletActivity} (what the admin API shows:
 * {@link org.sluice.edge.delivery.DeliveryActivity}). A destination failing for its
 * {@code disable_after} is counted by a {@code FailureStreak} (whose start the pass keeps in
 * the control state, so a restart does not restart the count) and disabled by the pass, which
 * tells it through {@link org.sluice.edge.delivery.DeliveryEvents} and audits it through
 * {@link org.sluice.edge.delivery.DeliveryAudit}. Words: a delivery's <em>state</em>
 * (pending, delivered, dead) and a destination's stored <em>counts</em> are the store's; what
 * the dispatcher is doing for a destination now is its <em>activity</em>.
 *
 * <p>May use {@code sluice-core} (clock, limiters), {@code delivery.targets},
 * {@code org.sluice.edge.store} (the
 * delivery rows), {@code org.sluice.edge.settings} (the readers' toolkit) and
 * {@code org.sluice.edge.verify} (the header-name rule). Bad settings throw
 * {@link org.sluice.edge.delivery.SettingsException} or become problems in the reader's
 * section, which the config loader reports as its own errors; {@code config} calls the
 * readers, never the other way round. Nothing here knows about the ingest HTTP server,
 * intake or the admin API; they may call in, not the other way round (ArchitectureTest).
 */
package org.sluice.edge.delivery;
