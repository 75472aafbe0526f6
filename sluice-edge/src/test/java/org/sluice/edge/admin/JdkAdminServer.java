package org.sluice.edge.admin;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The JDK's HTTP server in front of an {@link AdminApi}, on a loopback port chosen by the
 * OS: real sockets and real HTTP for the CLI's tests, independent of the Netty listener.
 */
public final class JdkAdminServer implements AutoCloseable {

    private final HttpServer server;
    private final ExecutorService pool = Executors.newFixedThreadPool(2);

    public JdkAdminServer(AdminApi api) throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        server.setExecutor(pool);
        server.createContext("/", exchange -> answer(api, exchange));
        server.start();
    }

    /** {@code http://127.0.0.1:<port>}. */
    public String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    private static void answer(AdminApi api, HttpExchange exchange) throws IOException {
        try (exchange) {
            byte[] body;
            try (InputStream in = exchange.getRequestBody()) {
                body = in.readNBytes(AdminApi.MAX_BODY_BYTES + 1);
            }
            Map<String, String> headers = new HashMap<>();
            for (Map.Entry<String, List<String>> h : exchange.getRequestHeaders().entrySet()) {
                headers.put(h.getKey(), h.getValue().get(0));
            }
            String query = exchange.getRequestURI().getRawQuery();
            AdminResponse response = api.handle(new AdminRequest(exchange.getRequestMethod(),
                    exchange.getRequestURI().getRawPath(), query, headers, body));
            response.headers().forEach((name, value) -> exchange.getResponseHeaders().set(name, value));
            byte[] out = response.body();
            exchange.sendResponseHeaders(response.status(), out.length == 0 ? -1 : out.length);
            if (out.length > 0) {
                try (OutputStream os = exchange.getResponseBody()) {
                    os.write(out);
                }
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
        pool.shutdownNow();
    }
}
