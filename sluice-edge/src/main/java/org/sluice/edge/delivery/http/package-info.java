/**
 * The {@code type: http} transport (the default type): a destination's
 * {@link org.sluice.edge.delivery.http.HttpTarget} (URL, CA file, signer), its reader
 * ({@link org.sluice.edge.delivery.http.HttpReader}) and the Netty client that POSTs each
 * attempt ({@link org.sluice.edge.delivery.http.HttpDeliveryClient}, with its per-loop
 * {@code Pool}s, each {@code HttpAttempt} and the {@code AnswerHandler} that reads an answer).
 *
 * <p>May use {@code delivery} (the seam), {@code store} (the hook an attempt carries),
 * {@code settings} and Netty; not the other transport rooms (ArchitectureTest).
 */
package org.sluice.edge.delivery.http;
