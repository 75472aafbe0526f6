/**
 * Signature verification, one verifier per scheme (hmac, github, stripe, shopify, slack,
 * standard_webhooks, none), with constant-time comparison and bounded work per header.
 *
 * <p>May use: the JDK only. No I/O, no state beyond the configured secrets.
 */
package org.sluice.edge.verify;
