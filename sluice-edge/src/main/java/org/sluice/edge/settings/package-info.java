/**
 * Reading a settings tree: the toolkit every reader of the configuration uses. A
 * {@link org.sluice.edge.settings.Section} is one mapping at a key path, read key by key;
 * a wrong value becomes a problem in {@link org.sluice.edge.settings.Problems} (the key
 * path, then the value as {@link org.sluice.edge.settings.Values} renders it) and the walk
 * goes on, so that one load reports every problem. A key that names a file reads it with
 * {@link org.sluice.edge.settings.FilePaths}: the path, and why the file cannot be read.
 * A key that takes one of a set of words is an enum implementing
 * {@link org.sluice.edge.settings.ConfigWord} (each constant spelled in lower case), read with
 * {@code Section.choice}.
 *
 * <p>The bottom room of the config: it uses the JDK only. {@code config} reads the file
 * with it and so do the delivery rooms ({@code delivery.http}, {@code delivery.kafka},
 * {@code delivery.nats}), each for its own destination keys, without depending on
 * {@code config} (which depends on them).
 */
package org.sluice.edge.settings;
