/**
 * The admin API as plain request-to-response logic ({@code AdminApi}), its listener-side
 * handler ({@code AdminHttpHandler}), the token, the audit trail adapters, and the static
 * pages it serves without the token (the console, the API reference).
 *
 * <p>May use: {@code sluice-core}, {@code config}, {@code store}, {@code intake} (queue
 * readings), {@code stats}, {@code delivery} (destinations, live status, replays). Never reached from the ingest path ({@code http},
 * {@code admission}); {@code server} builds it and puts it on the admin listener.
 */
package org.sluice.edge.admin;
