/**
 * Logging shared by every package of the edge: {@code Warnings}, the one rate-limited
 * logger. Uses nothing of the edge; every package may use it.
 */
package org.sluice.edge.log;
