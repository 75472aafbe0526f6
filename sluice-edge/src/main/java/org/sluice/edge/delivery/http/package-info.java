/**
 * The {@code type: http} transport (the default type): the reader of a destination's
 * {@link org.sluice.edge.delivery.targets.HttpTarget} (URL, CA file) and its signing and
 * headers ({@link org.sluice.edge.delivery.http.HttpReader}), and the Netty client that POSTs
 * each attempt ({@link org.sluice.edge.delivery.http.HttpDeliveryClient}, with its per-loop
 * {@code Pool}s, each {@code HttpAttempt}, the {@code AnswerHandler} that reads an answer,
 * and the {@link org.sluice.edge.delivery.http.ClientLoops} it may borrow).
 *
 * <p>May use {@code delivery} (the seam), {@code delivery.targets}, {@code store} (the hook an attempt carries),
 * {@code settings}, {@code netio} (the transport of its event loops) and Netty; not the other
 * transport rooms (ArchitectureTest).
 */
package org.sluice.edge.delivery.http;
