/**
 * {@code sluice load}: an open-loop load generator for signed webhooks.
 *
 * <p>Owns: the arrival schedule ({@link org.sluice.edge.load.LoadRun}), the signed requests
 * ({@link org.sluice.edge.load.HookFactory}), a fixed pool of keep-alive HTTP/1.1
 * connections ({@link org.sluice.edge.load.ConnectionPool}), the counters and latency
 * histograms ({@link org.sluice.edge.load.LoadStats}), and the summary and HTML report
 * ({@link org.sluice.edge.load.LoadSummary}, {@link org.sluice.edge.load.HtmlReport}).
 *
 * <p>May use: {@code org.sluice.edge.verify.Signatures} (to sign as a sender would), Netty,
 * HdrHistogram, Jackson and the uPlot WebJar. Nothing in the server uses this package; it
 * is a client, run by {@code org.sluice.edge.cli.LoadCommand}.
 *
 * <p>Open loop: request {@code i} is due at {@code start + i / rate}, whatever happened to
 * the requests before it, and its latency is measured from that intended time, not from
 * when a connection became free. A server that stalls therefore shows its stall in the
 * latency of every request that queued behind it (no coordinated omission).
 */
package org.sluice.edge.load;
