package org.sluice.edge.server;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import java.util.function.Function;

/**
 * TEST SEAM (package-private): what a test may change in each ingest connection's pipeline,
 * so that one input can be given to the pipeline with and without the refusal fast path and
 * the answers compared.
 *
 * @param refusalFastPath false leaves {@code RefusalFastPath} out even where the config
 *                        would install it: the plain pipeline, as the fast path must mimic it
 * @param first           builds a handler placed first in every connection's pipeline (before
 *                        TLS and the fast path), for example one that hands the connection's
 *                        bytes on in reads of chosen sizes; null for none
 */
record PipelineSeam(boolean refusalFastPath, Function<Channel, ChannelHandler> first) {

    /** Production: the pipeline as the config makes it. */
    static final PipelineSeam NONE = new PipelineSeam(true, null);
}
