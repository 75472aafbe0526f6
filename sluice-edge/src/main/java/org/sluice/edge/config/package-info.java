/**
 * Configuration: reading YAML with environment substitution, binding it to immutable
 * records, and checking every key. A bad value is a {@code ConfigException} naming the key
 * path and the value. Owns the one {@code TenantId} rule.
 *
 * <p>May use: {@code sluice-core} (limits), {@code settings} (the reading toolkit),
 * {@code verify} and {@code dedupe} (to check a source's scheme and dedupe key at load
 * time), and {@code delivery} (its destination records, and the reader of each destination
 * type, which lives in that transport's room), and {@code netio} ({@code http.transport}
 * names one of its transports). No I/O beyond reading the file.
 */
package org.sluice.edge.config;
