package org.sluice.edge.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.Map;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.sluice.edge.admin.AdminToken;

/**
 * A small blocking client of the admin API for the CLI. Failures that are not an HTTP
 * answer (no token, nothing listening, a timeout) become {@link Unreachable} with a
 * message meant for the operator.
 */
final class AdminClient {

    /** The admin API could not be asked: no token, or no answer. Exit code {@link #EXIT_UNREACHABLE}. */
    static final class Unreachable extends Exception {
        private static final long serialVersionUID = 1L;

        Unreachable(String message) {
            super(message);
        }
    }

    /** One answer: status and parsed JSON body (null for an empty body). */
    record Answer(int status, JsonNode body) {
        /** {@code error} of an error body, or the status when there is none. */
        String error() {
            return body != null && body.hasNonNull("error") ? body.get("error").asText() : "HTTP " + status;
        }

        /** {@code <status> <error>[: <message>]}. */
        String describe() {
            String text = status + " " + error();
            return body != null && body.hasNonNull("message") ? text + ": " + body.get("message").asText() : text;
        }
    }

    static final int EXIT_OK = 0;
    static final int EXIT_REFUSED = 1;
    static final int EXIT_UNREACHABLE = 3;

    static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

    private final URI base;
    private final String token;
    private final String actor;
    private final HttpClient http;

    private AdminClient(URI base, String token, String actor, SSLContext tls) {
        this.base = base;
        this.token = token;
        this.actor = actor;
        HttpClient.Builder http = HttpClient.newBuilder().connectTimeout(CONNECT_TIMEOUT);
        if (tls != null) {
            http.sslContext(tls);
        }
        this.http = http.build();
    }

    /** A client for {@code options}, with the token from {@code env} or the data dir. */
    static AdminClient from(AdminClientOptions options, Map<String, String> env) throws Unreachable {
        URI base;
        try {
            base = URI.create(options.admin.endsWith("/") ? options.admin.substring(0, options.admin.length() - 1)
                    : options.admin);
            if ((!"http".equals(base.getScheme()) && !"https".equals(base.getScheme())) || base.getHost() == null) {
                throw new IllegalArgumentException("not an http URL");
            }
        } catch (IllegalArgumentException e) {
            throw new Unreachable("--admin must be an http URL such as http://127.0.0.1:9090, got " + options.admin);
        }
        SSLContext tls = null;
        if (options.ca != null) {
            if (!"https".equals(base.getScheme())) {
                throw new Unreachable("--ca is for an https --admin URL (an admin listener with admin.tls), got "
                        + options.admin);
            }
            tls = trusting(options.ca);
        }
        return new AdminClient(base, token(options.dataDir, env), options.actor, tls);
    }

    /** A TLS context that trusts exactly the certificates in the PEM file {@code ca}. */
    private static SSLContext trusting(Path ca) throws Unreachable {
        try (InputStream in = Files.newInputStream(ca)) {
            KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
            trust.load(null, null);
            int n = 0;
            for (Certificate cert : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                trust.setCertificateEntry("ca-" + n++, cert);
            }
            if (n == 0) {
                throw new Unreachable("--ca " + ca + " holds no PEM certificate");
            }
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(trust);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, tmf.getTrustManagers(), null);
            return context;
        } catch (IOException | GeneralSecurityException e) {
            throw new Unreachable("cannot read --ca " + ca + " as PEM certificates: " + e.getMessage());
        }
    }

    private static String token(Path dataDir, Map<String, String> env) throws Unreachable {
        String fromEnv = env.get(AdminClientOptions.TOKEN_ENV);
        if (fromEnv != null && !fromEnv.isBlank()) {
            return fromEnv.strip();
        }
        Path file = dataDir.resolve(AdminToken.FILE_NAME);
        try {
            String token = Files.readString(file, StandardCharsets.UTF_8).strip();
            if (token.isEmpty()) {
                throw new Unreachable("the admin token file " + file + " is empty");
            }
            return token;
        } catch (NoSuchFileException e) {
            throw new Unreachable("no admin token: set $" + AdminClientOptions.TOKEN_ENV + " or point --data-dir at the "
                    + "server's node.data_dir (no " + file + ")");
        } catch (IOException e) {
            throw new Unreachable("cannot read the admin token file " + file + ": " + e.getMessage());
        }
    }

    Answer get(String pathAndQuery) throws Unreachable, InterruptedException {
        return send(HttpRequest.newBuilder(uri(pathAndQuery)).GET());
    }

    Answer put(String path, Object json) throws Unreachable, InterruptedException {
        return sendJson("PUT", path, json);
    }

    /** POST with a JSON body, or with none when {@code json} is null. */
    Answer post(String path, Object json) throws Unreachable, InterruptedException {
        if (json == null) {
            return send(HttpRequest.newBuilder(uri(path)).POST(HttpRequest.BodyPublishers.noBody()));
        }
        return sendJson("POST", path, json);
    }

    /** {@code method} with {@code json} written as the body. */
    private Answer sendJson(String method, String path, Object json) throws Unreachable, InterruptedException {
        byte[] body;
        try {
            body = JSON.writeValueAsBytes(json);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return send(HttpRequest.newBuilder(uri(path)).method(method, HttpRequest.BodyPublishers.ofByteArray(body))
                .header("Content-Type", "application/json"));
    }

    Answer delete(String path) throws Unreachable, InterruptedException {
        return send(HttpRequest.newBuilder(uri(path)).DELETE());
    }

    private URI uri(String pathAndQuery) {
        return URI.create(base + pathAndQuery);
    }

    private Answer send(HttpRequest.Builder request) throws Unreachable, InterruptedException {
        request.timeout(REQUEST_TIMEOUT).header("Authorization", "Bearer " + token);
        if (actor != null && !actor.isBlank()) {
            request.header("X-Sluice-Actor", actor);
        }
        HttpResponse<byte[]> response;
        try {
            response = http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
        } catch (ConnectException e) {
            throw new Unreachable("cannot connect to the admin API at " + base + " (is the server running? see --admin)");
        } catch (HttpTimeoutException e) {
            throw new Unreachable("the admin API at " + base + " did not answer in time");
        } catch (IOException e) {
            throw new Unreachable("the admin API at " + base + " failed: " + e.getMessage());
        }
        JsonNode body = null;
        if (response.body().length > 0) {
            try {
                body = JSON.readTree(response.body());
            } catch (IOException e) {
                body = null;
            }
        }
        return new Answer(response.statusCode(), body);
    }
}
