package org.sluice.bench.consuming;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.function.Consumer;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * An application's endpoint for an {@code http} destination (docs/consuming.md, "HTTP"):
 * it checks the Standard Webhooks signature Sluice puts on every attempt, then hands each
 * hook to the application once, however often Sluice sends it.
 *
 * <ul>
 *   <li>{@code webhook-signature} holds one or more {@code v1,<base64>} entries; one must
 *       equal the HMAC-SHA256, keyed with the base64 after {@code whsec_}, of
 *       {@code <webhook-id>.<webhook-timestamp>.<body>}. Compared in constant time.</li>
 *   <li>{@code webhook-timestamp} must be within {@link #TOLERANCE_SECONDS} of now, so a
 *       captured request cannot be replayed later.</li>
 *   <li>A {@code webhook-id} already handled is answered {@code 204} again without
 *       handling it twice: Sluice delivers at least once, so a retry after a lost answer
 *       or a crash arrives with the same id. (A real application keeps these ids where its
 *       data is, in the same transaction; here a bounded in-memory set stands in.)</li>
 * </ul>
 * Answers: {@code 204} handled (or handled before), {@code 401} bad signature or stale
 * timestamp (Sluice retries it; fix the secret), {@code 500} the handler threw (retried).
 */
public final class HttpHookReceiver implements AutoCloseable {

    public static final long TOLERANCE_SECONDS = 300;
    private static final int REMEMBERED_IDS = 100_000;

    /** One verified hook, as the application sees it. */
    public record Hook(String id, String tenant, String source, byte[] body) {
    }

    private final HttpServer server;
    private final byte[] key;
    private final Consumer<Hook> handler;
    private final Map<String, Boolean> seen = new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
            return size() > REMEMBERED_IDS;
        }
    };

    private HttpHookReceiver(HttpServer server, String secret, Consumer<Hook> handler) {
        this.server = server;
        this.key = Base64.getDecoder().decode(secret.substring("whsec_".length()));
        this.handler = handler;
    }

    /**
     * Listens on {@code address} (port 0: any free one) at {@code path}.
     *
     * @param secret  the destination's {@code signing.secret}, {@code whsec_...}
     * @param handler the application; called once per hook id
     */
    public static HttpHookReceiver start(InetSocketAddress address, String path, String secret, Consumer<Hook> handler)
            throws IOException {
        HttpServer server = HttpServer.create(address, 0);
        HttpHookReceiver receiver = new HttpHookReceiver(server, secret, handler);
        server.createContext(path, receiver::handle);
        server.setExecutor(Executors.newFixedThreadPool(4));
        server.start();
        return receiver;
    }

    public int port() {
        return server.getAddress().getPort();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            byte[] body = exchange.getRequestBody().readAllBytes();
            String id = exchange.getRequestHeaders().getFirst("webhook-id");
            String timestamp = exchange.getRequestHeaders().getFirst("webhook-timestamp");
            String signatures = exchange.getRequestHeaders().getFirst("webhook-signature");
            if (!verified(id, timestamp, signatures, body, System.currentTimeMillis() / 1000)) {
                exchange.sendResponseHeaders(401, -1);
                return;
            }
            synchronized (seen) {
                if (seen.containsKey(id)) {
                    exchange.sendResponseHeaders(204, -1); // handled before: at least once, processed once
                    return;
                }
            }
            try {
                handler.accept(new Hook(id, exchange.getRequestHeaders().getFirst("sluice-tenant"),
                        exchange.getRequestHeaders().getFirst("sluice-source"), body));
            } catch (RuntimeException e) {
                exchange.sendResponseHeaders(500, -1); // not remembered: the retry handles it
                return;
            }
            synchronized (seen) {
                seen.put(id, Boolean.TRUE);
            }
            exchange.sendResponseHeaders(204, -1);
        }
    }

    /** True when one of {@code signatures} signs {@code id.timestamp.body} and the timestamp is fresh. */
    boolean verified(String id, String timestamp, String signatures, byte[] body, long nowSeconds) {
        if (id == null || timestamp == null || signatures == null) {
            return false;
        }
        long ts;
        try {
            ts = Long.parseLong(timestamp);
        } catch (NumberFormatException e) {
            return false;
        }
        if (Math.abs(nowSeconds - ts) > TOLERANCE_SECONDS) {
            return false;
        }
        byte[] expected;
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            mac.update((id + "." + timestamp + ".").getBytes(StandardCharsets.UTF_8));
            expected = mac.doFinal(body);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
        for (String entry : signatures.split(" ")) {
            if (entry.startsWith("v1,")) {
                byte[] given;
                try {
                    given = Base64.getDecoder().decode(entry.substring(3));
                } catch (IllegalArgumentException notBase64) {
                    continue;
                }
                if (MessageDigest.isEqual(expected, given)) {
                    return true;
                }
            }
        }
        return false;
    }

    @Override
    public void close() {
        server.stop(0);
        ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
    }
}
