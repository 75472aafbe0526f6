package org.sluice.edge.server;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.MessageInfo;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** A test's own view of one JetStream stream on a real server: create it, count and read its messages. */
final class NatsStream implements AutoCloseable {

    final String name;
    private final Connection connection;
    private final JetStreamManagement jsm;

    private NatsStream(String url, String name, Path credentials) {
        this.name = name;
        try {
            Options.Builder options = new Options.Builder().server(url);
            if (credentials != null) {
                options.authHandler(Nats.credentials(credentials.toString()));
            }
            this.connection = Nats.connect(options.build());
            this.jsm = connection.jetStreamManagement();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** A view of stream {@code name}, not created yet. */
    static NatsStream on(String url, String name) {
        return new NatsStream(url, name, null);
    }

    /** As {@link #on(String, String)}, connecting as the user of the {@code .creds} file {@code credentials}. */
    static NatsStream on(String url, String name, Path credentials) {
        return new NatsStream(url, name, credentials);
    }

    /** Creates the stream: file storage, over {@code subjects}, {@code maxMsgSize} bytes at most a message (-1: any). */
    NatsStream create(long maxMsgSize, String... subjects) {
        try {
            jsm.addStream(StreamConfiguration.builder().name(name).subjects(subjects).storageType(StorageType.File)
                    .maxMsgSize(maxMsgSize).duplicateWindow(Duration.ofMinutes(2)).build());
            return this;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (JetStreamApiException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Messages in the stream now; -1 while the server cannot say (down, reconnecting). */
    long count() {
        try {
            return jsm.getStreamInfo(name).getStreamState().getMsgCount();
        } catch (IOException | JetStreamApiException | RuntimeException e) {
            return -1;
        }
    }

    /** Every message, in stream order. */
    List<MessageInfo> messages() {
        List<MessageInfo> out = new ArrayList<>();
        try {
            long last = jsm.getStreamInfo(name).getStreamState().getLastSequence();
            for (long seq = 1; seq <= last; seq++) {
                out.add(jsm.getMessage(name, seq));
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (JetStreamApiException e) {
            throw new IllegalStateException(e);
        }
    }

    /** {@code webhook-id} to how many messages carry it. */
    Map<String, Integer> idCounts() {
        Map<String, Integer> out = new HashMap<>();
        for (MessageInfo m : messages()) {
            out.merge(m.getHeaders().getFirst("webhook-id"), 1, Integer::sum);
        }
        return out;
    }

    @Override
    public void close() {
        try {
            connection.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
