package org.sluice.edge.server;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A deliberately small HTTP/1.1 client over a plain socket, so tests control every byte:
 * the source address, header bytes no library would send, a declared body that never
 * comes, a body split into chunks.
 */
final class Http implements AutoCloseable {

    /** One response. Header names are lower-cased; repeated headers keep every value. */
    record Response(int status, Map<String, List<String>> headers, String body) {
        String header(String name) {
            List<String> values = headers.get(name.toLowerCase(Locale.ROOT));
            return values == null ? null : values.get(0);
        }

        @Override
        public String toString() {
            return status + " " + headers + " " + body;
        }
    }

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    private Http(Socket socket) throws IOException {
        this.socket = socket;
        socket.setSoTimeout(20_000);
        socket.setTcpNoDelay(true);
        this.in = socket.getInputStream();
        this.out = socket.getOutputStream();
    }

    static Http connect(InetSocketAddress server) {
        return connect(server, null);
    }

    /** Connects from {@code from} (e.g. 127.0.0.7, so the server sees that peer), or any address when null. */
    static Http connect(InetSocketAddress server, InetAddress from) {
        try {
            Socket s = new Socket();
            if (from != null) {
                s.bind(new InetSocketAddress(from, 0));
            }
            s.connect(server, 5_000);
            return new Http(s);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Wraps a socket that is already connected (a TLS socket, say). */
    static Http over(Socket connected) {
        try {
            return new Http(connected);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** One request on a fresh connection. */
    static Response post(InetSocketAddress server, String path, Map<String, String> headers, byte[] body) {
        try (Http http = connect(server)) {
            return http.request("POST", path, headers, body);
        }
    }

    static Response get(InetSocketAddress server, String path) {
        try (Http http = connect(server)) {
            return http.request("GET", path, Map.of(), null);
        }
    }

    /** Sends a request with a Content-Length (when body is not null) and reads the response. */
    Response request(String method, String path, Map<String, String> headers, byte[] body) {
        StringBuilder head = new StringBuilder(method).append(' ').append(path).append(" HTTP/1.1\r\n")
                .append("Host: localhost\r\n");
        headers.forEach((k, v) -> head.append(k).append(": ").append(v).append("\r\n"));
        if (body != null) {
            head.append("Content-Length: ").append(body.length).append("\r\n");
        }
        head.append("\r\n");
        write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
        if (body != null) {
            write(body);
        }
        return read();
    }

    Http write(byte[] bytes) {
        try {
            out.write(bytes);
            out.flush();
            return this;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    Http write(String latin1) {
        return write(latin1.getBytes(StandardCharsets.ISO_8859_1));
    }

    /** Reads one response (an interim 100 Continue counts as one). */
    Response read() {
        try {
            String statusLine = line();
            if (statusLine == null) {
                throw new IOException("connection closed before a response");
            }
            int status = Integer.parseInt(statusLine.split(" ")[1]);
            Map<String, List<String>> headers = new LinkedHashMap<>();
            for (String line = line(); line != null && !line.isEmpty(); line = line()) {
                int colon = line.indexOf(':');
                headers.computeIfAbsent(line.substring(0, colon).trim().toLowerCase(Locale.ROOT), k -> new ArrayList<>())
                        .add(line.substring(colon + 1).trim());
            }
            List<String> length = headers.get("content-length");
            byte[] body = in.readNBytes(length == null ? 0 : Integer.parseInt(length.get(0)));
            return new Response(status, headers, new String(body, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** True when the server has closed the connection (reads end of stream). */
    boolean closedByServer() {
        try {
            return in.read() < 0;
        } catch (IOException e) {
            return true; // reset
        }
    }

    /**
     * True when the next read finds a clean end of stream (the server's FIN, or a TLS
     * close_notify), false when a byte arrives; a reset fails with an exception rather than
     * passing for a close.
     */
    boolean endOfStream() {
        try {
            return in.read() < 0;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private String line() throws IOException {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) >= 0) {
            if (b == '\n') {
                String s = buf.toString(StandardCharsets.ISO_8859_1);
                return s.endsWith("\r") ? s.substring(0, s.length() - 1) : s;
            }
            buf.write(b);
        }
        return buf.size() == 0 ? null : buf.toString(StandardCharsets.ISO_8859_1);
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing a test socket
        }
    }
}
