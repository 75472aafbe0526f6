package org.sluice.edge.delivery;

import io.micrometer.core.instrument.MeterRegistry;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.sluice.core.Clock;
import org.sluice.edge.store.HookStore;

/**
 * What a {@link Dispatcher} lends every one of its {@link Outlet}s alike: built once, in the
 * dispatcher's constructor, and handed to each outlet beside its own destination and
 * transport.
 *
 * @param store       the hook store (its ledger is {@code store.deliveries()})
 * @param clock       the monotonic clock (breakers, pacing, attempt latency)
 * @param wallMillis  the wall clock, epoch ms (due times, ages)
 * @param outstanding the dispatcher's count of attempts out and answers unrecorded
 * @param recorder    where answers are judged and queued to be recorded
 * @param wake        wakes the driver (see {@link Dispatcher#wake()})
 * @param stopping    whether the dispatcher is stopping: a pass picks nothing more
 * @param registry    where each outlet registers its meters
 * @param fleetPacing the fleet's pacing of destinations, or null: each node paces alone
 */
record OutletContext(HookStore store, Clock clock, LongSupplier wallMillis, OutstandingAttempts outstanding,
                     AnswerRecorder recorder, Runnable wake, BooleanSupplier stopping, MeterRegistry registry,
                     FleetPacing fleetPacing) {
}
