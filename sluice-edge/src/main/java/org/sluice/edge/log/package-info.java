/**
 * Logging shared by every package of the edge: {@code Warnings}, the one rate-limited
 * logger. Uses nothing of the edge but SLF4J; {@code http}, {@code intake} and {@code server}
 * use it.
 */
package org.sluice.edge.log;
