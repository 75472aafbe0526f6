package org.sluice.testkit;

import java.io.BufferedInputStream;
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
import java.util.List;

/**
 * A minimal Redis protocol (RESP2) client over a raw socket, for fixtures and test
 * assertions only: one connection per call, a hard socket timeout, no pooling. Replies
 * come back as {@code String} (simple and bulk strings), {@code Long} (integers),
 * {@code null} (nil), {@code List<Object>} (arrays); an error reply is thrown as
 * {@link RedisError}.
 */
public final class Resp {

    /** An error reply ({@code -ERR ...}) from the server. */
    public static final class RedisError extends RuntimeException {
        public RedisError(String message) {
            super(message);
        }
    }

    private Resp() {
    }

    /** Sends one command to {@code 127.0.0.1:port} and reads its reply. */
    public static Object call(int port, int timeoutMillis, String... args) {
        try (Socket socket = new Socket()) {
            InetAddress loopback = InetAddress.getByAddress(new byte[] {127, 0, 0, 1}); // where RedisServer binds
            socket.connect(new InetSocketAddress(loopback, port), timeoutMillis);
            socket.setSoTimeout(timeoutMillis);
            OutputStream out = socket.getOutputStream();
            out.write(encode(args));
            out.flush();
            return read(new BufferedInputStream(socket.getInputStream()));
        } catch (IOException e) {
            throw new UncheckedIOException("redis command " + args[0] + " on port " + port + " failed", e);
        }
    }

    static byte[] encode(String... args) {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        writeAscii(buf, "*" + args.length + "\r\n");
        for (String arg : args) {
            byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
            writeAscii(buf, "$" + bytes.length + "\r\n");
            buf.writeBytes(bytes);
            writeAscii(buf, "\r\n");
        }
        return buf.toByteArray();
    }

    private static void writeAscii(ByteArrayOutputStream buf, String s) {
        buf.writeBytes(s.getBytes(StandardCharsets.US_ASCII));
    }

    static Object read(InputStream in) throws IOException {
        int type = in.read();
        if (type < 0) {
            throw new IOException("connection closed before a reply");
        }
        String line = readLine(in);
        switch (type) {
            case '+' -> {
                return line;
            }
            case '-' -> throw new RedisError(line);
            case ':' -> {
                return Long.parseLong(line);
            }
            case '$' -> {
                int len = Integer.parseInt(line);
                if (len < 0) {
                    return null;
                }
                byte[] data = in.readNBytes(len);
                readLine(in);
                return new String(data, StandardCharsets.UTF_8);
            }
            case '*' -> {
                int n = Integer.parseInt(line);
                if (n < 0) {
                    return null;
                }
                List<Object> items = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    items.add(read(in));
                }
                return items;
            }
            default -> throw new IOException("unexpected reply type byte " + type);
        }
    }

    private static String readLine(InputStream in) throws IOException {
        StringBuilder sb = new StringBuilder();
        int c;
        while ((c = in.read()) >= 0) {
            if (c == '\r') {
                in.read(); // '\n'
                return sb.toString();
            }
            sb.append((char) c);
        }
        throw new IOException("connection closed inside a reply");
    }
}
