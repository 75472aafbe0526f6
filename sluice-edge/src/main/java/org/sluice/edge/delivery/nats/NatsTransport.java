package org.sluice.edge.delivery.nats;

import org.sluice.edge.delivery.AttemptOutcome;
import org.sluice.edge.delivery.targets.NatsTarget;
import io.nats.client.Connection;
import io.nats.client.ConnectionListener;
import io.nats.client.ErrorListener;
import io.nats.client.JetStreamApiException;
import io.nats.client.Message;
import io.nats.client.MessageHandler;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.PublishAck;
import io.nats.client.impl.Headers;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.sluice.edge.delivery.AttemptResult;
import org.sluice.edge.delivery.Destination;
import org.sluice.edge.delivery.OutboundHeaders;
import org.sluice.edge.delivery.Transport;
import org.sluice.edge.delivery.broker.AttemptsOut;
import org.sluice.edge.delivery.broker.AttemptsOut.Attempt;
import org.sluice.edge.delivery.broker.BrokerThreads;
import org.sluice.edge.store.StoredHook;

/**
 * The {@code type: nats} transport: publishes each attempt to NATS JetStream and counts
 * the stream's publish acknowledgement as the delivery.
 *
 * <h2>Connections</h2>
 * One connection per destination. It is made on this transport's connect thread
 * ({@code sluice-nats-connect}), tried again every {@value #CONNECT_RETRY_MS} ms while no
 * server answers, and once made it reconnects by itself (the client's own reconnect loop,
 * without limit). An attempt while the destination is not connected fails at once
 * ({@link AttemptResult.Failure#CONNECT}, with the client's last error in
 * {@code last_error}) rather than waiting in the client's reconnect buffer: the retry
 * policy and the breaker decide when to try again.
 *
 * <h2>One attempt</h2>
 * The message is the received body, byte for byte, on the destination's subject with
 * {@code {tenant}} and {@code {source}} filled. Its headers: {@code Nats-Msg-Id} (the
 * hook id: the stream drops a second message with the same id within its duplicate
 * window), then those of {@link OutboundHeaders#forBroker}, the same as a Kafka record's,
 * written in wire form by {@link NatsWireHeaders} rather than through the client's
 * {@link Headers}.
 * The publish is asynchronous: {@link #send} only queues the message on the connection (no network wait on the caller's thread); the
 * future completes on the client's threads when the ack arrives, or, once {@code timeout_ms}
 * has passed, on the timer thread {@code sluice-nats-timer} ({@link AttemptResult.Failure#TIMEOUT}): one sweep per
 * destination over its attempts out ({@link AttemptsOut}), every tenth of {@code timeout_ms}
 * ({@value AttemptsOut#MAX_SWEEP_MS} ms at most), not a timer per attempt.
 *
 * <p>A JetStream publish is a message with a reply subject, and the stream answers it there
 * with its ack. Each connection has its own inbox: at connect it subscribes once to
 * {@code <inbox>.*} (the client's {@link Connection#createInbox}, a dispatcher thread of the
 * client), and each publish carries {@code <inbox>.<n>}, {@code n} a number of the link's
 * that names the attempt in {@link Link#out} (its number there). The subscription survives the client's
 * reconnects. This is what the client's own requests do, without a second table of
 * requests and a future of its own per publish beside the transport's (about a tenth of the
 * dispatcher thread's Java samples in a profiled backlog replay). Nor is it the client's
 * {@code JetStream.publishAsync}: that copies the headers once more to merge its options and
 * parses every ack as JSON on the client's threads. The common ack is recognised from its
 * bytes ({@link #isPlainAck}); any other reply goes through the client's {@link PublishAck},
 * so JetStream errors read as they did. A reply for a number no longer out (its attempt
 * ended by the sweep or by close) is dropped.
 *
 * <h2>Verdicts</h2>
 * <ul>
 *   <li>publish ack (a duplicate ack too: the stream already holds the hook): delivered,
 *       {@link AttemptResult#acknowledged()}, recorded without a status;</li>
 *   <li>no responders (no stream captures the subject; one may be created later), a
 *       JetStream error other than those below, a lost connection:
 *       {@link AttemptResult.Failure#BROKER}, retried;</li>
 *   <li>JetStream error {@value #MESSAGE_TOO_LARGE} (message larger than the stream's
 *       {@code max_msg_size}), a message over the server's {@code max_payload}, a subject
 *       that is not one ({@code {tenant}} filled with dots or wildcards): permanent, the
 *       delivery is dead with {@code permanent_error}.</li>
 * </ul>
 * The text of each error goes to {@code last_error}.
 */
public final class NatsTransport implements Transport {

    static final long CONNECT_RETRY_MS = 500;
    /** JetStream's {@code JSStreamMessageExceedsMaximumErr}. */
    static final int MESSAGE_TOO_LARGE = 10054;
    /** JetStream errors no later attempt of the same message can get past. */
    static final Set<Integer> PERMANENT_API_ERRORS = Set.of(MESSAGE_TOO_LARGE);
    /** The header by which the stream drops a second message with the same id within its duplicate window. */
    static final String MSG_ID = "Nats-Msg-Id";
    /** The reply status the server sends when nothing subscribes to the subject: no stream captures it. */
    static final int NO_RESPONDERS = 503;
    private static final AttemptOutcome DELIVERED = new AttemptOutcome(AttemptResult.acknowledged(), null);
    private static final byte[] ACK_START = "{\"stream\":\"".getBytes(StandardCharsets.US_ASCII);
    /** What follows the stream's name: nats-server writes a space after the comma; the compact form is taken too. */
    private static final byte[][] SEQ_FIELD = {bytes("\", \"seq\":"), bytes("\",\"seq\":")};
    /** A duplicate's ending: nats-server writes a space after the colon; the compact form is taken too. */
    private static final byte[][] DUPLICATE_END = {bytes(",\"duplicate\": true}"), bytes(",\"duplicate\":true}")};

    private final Map<String, Link> links = new ConcurrentHashMap<>();
    private final ScheduledExecutorService connector = BrokerThreads.timer("sluice-nats-connect");
    /** Sweeps for attempts past their deadline; not the connect thread, which may wait seconds for a server. */
    private final ScheduledExecutorService timer = BrokerThreads.timer("sluice-nats-timer");
    private volatile boolean closed;

    public NatsTransport() {
    }

    /** One destination's connection, made and remade on the connect thread. */
    private final class Link implements ConnectionListener, ErrorListener, MessageHandler {
        final Destination destination;
        final NatsTarget settings;
        /** Attempts published and not yet completed, each with its subject; the number in a reply subject names one. */
        final AttemptsOut<String> out;
        /** {@code <inbox>.}: the reply subjects' prefix, set before {@link #connection} is. */
        volatile String replyPrefix;
        volatile Connection connection;
        volatile String lastError = "not connected yet";
        /** The latest error the client reported while no connection was made yet. */
        volatile String connectProblem;

        Link(Destination destination) {
            this.destination = destination;
            this.settings = destination.target(NatsTarget.class);
            this.out = new AttemptsOut<>(destination.timeoutMs(),
                    failed(AttemptResult.Failure.TIMEOUT, "no publish ack within timeout_ms " + destination.timeoutMs()));
        }

        /** On the client's dispatcher thread: the stream's answer to the attempt its subject names. */
        @Override
        public void onMessage(Message reply) {
            String prefix = replyPrefix;
            long number = prefix == null ? -1 : replyNumber(reply.getSubject(), prefix.length());
            Attempt<String> a = number < 0 ? null : out.take(number);
            if (a != null) { // out of the table already; if the sweep or close completed it first, this changes nothing
                a.complete(verdict(reply, a.payload(), destination.timeoutMs()));
            }
        }

        void connect() {
            if (closed) {
                return;
            }
            Options.Builder b = new Options.Builder()
                    .servers(settings.servers().toArray(String[]::new))
                    .connectionName("sluice-" + destination.name())
                    .maxReconnects(-1)
                    .reconnectWait(Duration.ofMillis(CONNECT_RETRY_MS))
                    .connectionTimeout(Duration.ofMillis(Math.min(destination.timeoutMs(), 5_000)))
                    .connectionListener(this)
                    .errorListener(this);
            settings.credentialsFile().ifPresent(p -> b.authHandler(Nats.credentials(p.toString())));
            try {
                if (settings.tls()) {
                    b.sslContext(NatsTls.verifyingContext(settings.caFile()));
                }
                Connection c = Nats.connect(b.build());
                String inbox = c.createInbox();
                try {
                    c.createDispatcher(this).subscribe(inbox + ".*");
                } catch (RuntimeException e) {
                    c.close();
                    throw e;
                }
                replyPrefix = inbox + ".";
                connection = c;
                if (closed) {
                    c.close();
                }
            } catch (IOException | GeneralSecurityException | RuntimeException e) {
                // the client's own text names no reason; the reason (a refused certificate, say)
                // came to exceptionOccurred, perhaps only after this: the text keeps the latest
                String why = connectProblem;
                lastError = cannotConnect() + text(e) + (why == null ? "" : ": " + why);
                schedule(this, CONNECT_RETRY_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public void connectionEvent(Connection conn, Events type) {
            if (type == Events.DISCONNECTED) {
                lastError = "disconnected from " + NatsTarget.redact(String.valueOf(conn.getConnectedUrl()));
            }
        }

        @Override
        public void errorOccurred(Connection conn, String error) {
            lastError = "server error: " + error;
        }

        @Override
        public void exceptionOccurred(Connection conn, Exception exp) {
            if (connection == null) { // still connecting: a TLS or auth refusal is why the connect fails
                String why = reason(exp);
                connectProblem = why;
                lastError = cannotConnect() + why;
            } else {
                lastError = text(exp);
            }
        }

        private String cannotConnect() {
            return "cannot connect to " + settings.servers().stream().map(NatsTarget::redact).toList() + ": ";
        }
    }

    @Override
    public void register(Destination destination) {
        destination.target(NatsTarget.class); // throws for a destination of another kind
        Link link = new Link(destination);
        if (links.putIfAbsent(destination.name(), link) == null) {
            schedule(link, 0);
            link.out.sweepOn(timer);
        }
    }

    /**
     * The number at the end of a reply subject {@code <inbox>.<n>} ({@code from}: the
     * prefix's length), or -1 when the rest is not 1 to 18 decimal digits.
     */
    static long replyNumber(String subject, int from) {
        int n = subject.length() - from;
        if (n < 1 || n > 18) {
            return -1;
        }
        long v = 0;
        for (int i = from; i < subject.length(); i++) {
            char ch = subject.charAt(i);
            if (ch < '0' || ch > '9') {
                return -1;
            }
            v = v * 10 + (ch - '0');
        }
        return v;
    }

    private void schedule(Link link, long delayMs) {
        try {
            connector.schedule(link::connect, delayMs, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.RejectedExecutionException closing) {
            // closed: no more connecting
        }
    }

    @Override
    public CompletableFuture<AttemptOutcome> send(Destination destination, StoredHook hook, int attempt, long nowMillis) {
        Link link = links.get(destination.name());
        if (link == null || closed) {
            return done(failed(AttemptResult.Failure.CONNECT, "nats transport closed or destination not registered"));
        }
        String unfit = link.settings.fillProblem(hook.tenant());
        if (unfit != null) { // no later attempt fills it otherwise
            return done(new AttemptOutcome(AttemptResult.permanent(), unfit));
        }
        Connection c = link.connection;
        if (c == null || c.getStatus() != Connection.Status.CONNECTED) {
            return done(failed(AttemptResult.Failure.CONNECT, link.lastError));
        }
        String subject = link.settings.subjectFor(hook.tenant(), hook.source());
        if (!NatsTarget.isPublishSubject(subject)) {
            return done(new AttemptOutcome(AttemptResult.permanent(), "invalid subject " + subject));
        }
        Headers headers = headers(destination, hook, attempt);
        long timeoutMs = destination.timeoutMs();
        Attempt<String> a = link.out.open(subject); // in the table before the publish: its ack may come back at once
        try {
            c.publish(subject, link.replyPrefix + a.number(), headers, hook.body());
        } catch (RuntimeException e) {
            a.complete(outcome(e, subject, timeoutMs));
            return a.future();
        }
        if (closed) { // closed, perhaps after close() swept the link: nothing else may complete it
            a.complete(CLOSED);
        }
        return a.future();
    }

    /**
     * The verdict on the stream's reply to a publish: a publish ack is the delivery. The
     * usual ack is recognised from its bytes ({@link #isPlainAck}); anything else is read by
     * the client's {@link PublishAck}, whose exception carries the JetStream error.
     */
    static AttemptOutcome verdict(Message reply, String subject, long timeoutMs) {
        if (reply.isStatusMessage()) {
            return reply.getStatus().getCode() == NO_RESPONDERS ? noResponders(subject)
                    : failed(AttemptResult.Failure.BROKER, "status " + reply.getStatus().getMessageWithCode());
        }
        if (isPlainAck(reply.getData())) {
            return DELIVERED;
        }
        try {
            new PublishAck(reply);
            return DELIVERED;
        } catch (JetStreamApiException | IOException | RuntimeException e) {
            return outcome(e, subject, timeoutMs);
        }
    }

    /**
     * The reply is exactly the server's usual ack, as nats-server writes it:
     * {@code {"stream":"NAME", "seq":N}} or {@code {"stream":"NAME", "seq":N,"duplicate": true}}
     * (the same without those two spaces is taken too): NAME printable ASCII without quote or
     * backslash, N from 1 with at most 18 digits, nothing before or after. Anything else (a
     * domain, another field, other spacing, an error) is left to the client's
     * {@link PublishAck}, so this never calls a delivery what the client would not
     * (NatsReplyFuzzTest; NatsTransportTest holds it to a real server's acks).
     */
    static boolean isPlainAck(byte[] d) {
        if (d == null || !regionIs(d, 0, ACK_START)) {
            return false;
        }
        int i = ACK_START.length;
        int nameStart = i;
        while (i < d.length && d[i] != '"') {
            if (d[i] < 0x21 || d[i] > 0x7e || d[i] == '\\') {
                return false;
            }
            i++;
        }
        int field = i == nameStart ? -1 : startsWithOneOf(d, i, SEQ_FIELD);
        if (field < 0) {
            return false;
        }
        i += field;
        int digits = i;
        while (i < d.length && d[i] >= '0' && d[i] <= '9') {
            i++;
        }
        if (i == digits || i - digits > 18 || d[digits] == '0') {
            return false;
        }
        if (i == d.length - 1 && d[i] == '}') {
            return true;
        }
        int end = startsWithOneOf(d, i, DUPLICATE_END);
        return end > 0 && i + end == d.length;
    }

    /** The length of the first of {@code parts} that {@code d} has at {@code at}, or -1. */
    private static int startsWithOneOf(byte[] d, int at, byte[][] parts) {
        for (byte[] part : parts) {
            if (regionIs(d, at, part)) {
                return part.length;
            }
        }
        return -1;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static boolean regionIs(byte[] d, int at, byte[] part) {
        return d.length - at >= part.length && Arrays.equals(d, at, at + part.length, part, 0, part.length);
    }

    /**
     * The message headers of one attempt, in this order: {@value #MSG_ID}, then
     * {@link OutboundHeaders#forBroker}'s. A forwarded value NATS headers cannot carry (not
     * printable ASCII) is left out, never mangled ({@link NatsWireHeaders.Builder#add}).
     */
    public static Headers headers(Destination destination, StoredHook hook, int attempt) {
        NatsWireHeaders.Builder h = new NatsWireHeaders.Builder();
        h.add(MSG_ID, hook.id());
        destination.headers().forBroker(hook, attempt, h);
        return h.build();
    }

    /** The verdict on a publish that did not get an ack. */
    static AttemptOutcome outcome(Throwable error, String subject, long timeoutMs) {
        Throwable e = error;
        while ((e instanceof CompletionException || e instanceof ExecutionException
                || (e instanceof RuntimeException && e.getCause() instanceof JetStreamApiException)) && e.getCause() != null) {
            e = e.getCause();
        }
        if (e instanceof TimeoutException) {
            return failed(AttemptResult.Failure.TIMEOUT, "no publish ack within timeout_ms " + timeoutMs);
        }
        if (e instanceof JetStreamApiException api) {
            String text = "jetstream error " + api.getApiErrorCode() + ": " + api.getErrorDescription();
            return PERMANENT_API_ERRORS.contains(api.getApiErrorCode())
                    ? new AttemptOutcome(AttemptResult.permanent(), text) : failed(AttemptResult.Failure.BROKER, text);
        }
        String text = text(e);
        if (e instanceof CancellationException || text.contains("503") || text.toLowerCase(java.util.Locale.ROOT).contains("no responders")) {
            return noResponders(subject);
        }
        if (e instanceof IllegalArgumentException) { // the client refused it: over max_payload, a bad subject
            return new AttemptOutcome(AttemptResult.permanent(), text);
        }
        return failed(AttemptResult.Failure.BROKER, text);
    }

    private static AttemptOutcome noResponders(String subject) {
        return failed(AttemptResult.Failure.BROKER, "no responders on subject " + subject + ": no stream captures it (yet)");
    }

    /** The text of the innermost cause that has one: an SSL refusal's own reason, not its wrapper's. */
    private static String reason(Throwable e) {
        String why = text(e);
        for (Throwable c = e.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
            String m = c.getMessage();
            if (m != null && !m.isBlank()) {
                why = m;
            }
        }
        return why;
    }

    private static String text(Throwable e) {
        String m = e.getMessage();
        return m == null || m.isBlank() ? e.getClass().getSimpleName() : m;
    }

    private static AttemptOutcome failed(AttemptResult.Failure failure, String error) {
        return new AttemptOutcome(AttemptResult.failed(failure), error);
    }

    private static CompletableFuture<AttemptOutcome> done(AttemptOutcome o) {
        return CompletableFuture.completedFuture(o);
    }

    private static final AttemptOutcome CLOSED = failed(AttemptResult.Failure.CONNECT, "nats transport closed");

    /** Closes every connection; attempts still out complete as failed. */
    @Override
    public void close() {
        closed = true;
        connector.shutdownNow();
        timer.shutdownNow();
        for (Link link : links.values()) {
            Connection c = link.connection;
            if (c != null) {
                try {
                    c.close();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (RuntimeException ignored) {
                    // closing anyway
                }
            }
            link.out.completeAll(CLOSED);
        }
    }
}
