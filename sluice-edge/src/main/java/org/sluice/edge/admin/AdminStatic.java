package org.sluice.edge.admin;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

/**
 * The admin listener's static files: the OpenAPI descriptions ({@code GET /openapi/ingest.yaml},
 * {@code GET /openapi/admin.yaml}, copied at build time from {@code docs/openapi}) and the
 * rendered reference at {@code GET /docs} (Swagger UI, from the {@code org.webjars:swagger-ui}
 * jar; nothing is fetched from the network).
 *
 * <p>Served <b>without</b> the admin token: a browser's navigation cannot send a bearer header,
 * and these files only describe the API (the {@code /v1} routes they describe still require
 * the token). Every file is read from the classpath once, when the first handler is built at
 * boot, and kept in memory, so answering never does I/O on the event loop. Only the names
 * listed here are served; any other path under {@code /docs/} or {@code /openapi/} is 404.
 *
 * <p>Every answer carries a Content-Security-Policy that allows scripts from this listener
 * only (no inline script: Swagger UI is started by {@code sluice-docs.js}, a file of its
 * own), {@code X-Frame-Options: DENY}, {@code Referrer-Policy: no-referrer} and
 * {@code X-Content-Type-Options: nosniff}.
 */
final class AdminStatic {

    static final String CONTENT_SECURITY_POLICY = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline';"
            + " img-src 'self' data:; font-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none';"
            + " frame-ancestors 'none'";

    private static final String WEBJAR = "META-INF/resources/webjars/swagger-ui/";
    private static final String WEBJAR_POM = "META-INF/maven/org.webjars/swagger-ui/pom.properties";
    private static final String OWN = "org/sluice/edge/admin/docs/";

    private final Map<String, AdminResponse> files;

    private AdminStatic(Map<String, AdminResponse> files) {
        this.files = Map.copyOf(files);
    }

    /** The files, read once per JVM. */
    static AdminStatic shared() {
        return Holder.INSTANCE;
    }

    /** True for the paths this class answers: {@code /docs}, {@code /docs/...}, {@code /openapi/...}. */
    static boolean owns(String path) {
        return path.equals("/docs") || path.startsWith("/docs/") || path.startsWith("/openapi/");
    }

    /** The answer to {@code method path}, for a path {@link #owns owned} here. */
    AdminResponse answer(String method, String path) {
        AdminResponse file = files.get(path);
        if (file == null) {
            return secured(AdminResponse.json(404, AdminJson.error("not_found")));
        }
        if (!method.equals("GET")) {
            return secured(AdminResponse.json(405, AdminJson.error("method_not_allowed")).withHeader("Allow", "GET"));
        }
        return file;
    }

    private static AdminStatic load() {
        ClassLoader loader = AdminStatic.class.getClassLoader();
        String version = webjarVersion(loader);
        String webjar = WEBJAR + version + "/";
        Map<String, AdminResponse> files = new LinkedHashMap<>();
        AdminResponse index = file(loader, OWN + "index.html", "text/html; charset=utf-8");
        files.put("/docs", index);
        files.put("/docs/", index);
        files.put("/docs/index.html", index);
        files.put("/docs/sluice-docs.js", file(loader, OWN + "sluice-docs.js", "text/javascript; charset=utf-8"));
        files.put("/docs/swagger-ui.css", file(loader, webjar + "swagger-ui.css", "text/css; charset=utf-8"));
        files.put("/docs/swagger-ui-bundle.js", file(loader, webjar + "swagger-ui-bundle.js", "text/javascript; charset=utf-8"));
        files.put("/docs/swagger-ui-standalone-preset.js",
                file(loader, webjar + "swagger-ui-standalone-preset.js", "text/javascript; charset=utf-8"));
        files.put("/docs/favicon-32x32.png", file(loader, webjar + "favicon-32x32.png", "image/png"));
        files.put("/docs/favicon-16x16.png", file(loader, webjar + "favicon-16x16.png", "image/png"));
        files.put("/openapi/ingest.yaml", file(loader, "openapi/ingest.yaml", "application/yaml; charset=utf-8"));
        files.put("/openapi/admin.yaml", file(loader, "openapi/admin.yaml", "application/yaml; charset=utf-8"));
        return new AdminStatic(files);
    }

    private static String webjarVersion(ClassLoader loader) {
        Properties pom = new Properties();
        try (InputStream in = open(loader, WEBJAR_POM)) {
            pom.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + WEBJAR_POM + ": " + e.getMessage(), e);
        }
        String version = pom.getProperty("version");
        if (version == null || version.isBlank()) {
            throw new IllegalStateException(WEBJAR_POM + " names no version");
        }
        return version.strip();
    }

    private static AdminResponse file(ClassLoader loader, String resource, String contentType) {
        byte[] bytes;
        try (InputStream in = open(loader, resource)) {
            bytes = in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + resource + ": " + e.getMessage(), e);
        }
        return secured(new AdminResponse(200, Map.of("Content-Type", contentType, "Cache-Control", "no-cache"), bytes));
    }

    private static InputStream open(ClassLoader loader, String resource) {
        InputStream in = loader.getResourceAsStream(resource);
        if (in == null) {
            throw new IllegalStateException("resource " + resource + " is missing from the classpath (a broken build?)");
        }
        return in;
    }

    private static AdminResponse secured(AdminResponse response) {
        return response.withHeader("Content-Security-Policy", CONTENT_SECURITY_POLICY)
                .withHeader("X-Frame-Options", "DENY")
                .withHeader("Referrer-Policy", "no-referrer")
                .withHeader("X-Content-Type-Options", "nosniff");
    }

    /** Reads the files on first use: when the first {@link AdminHttpHandler} is built, at boot. */
    private static final class Holder {
        static final AdminStatic INSTANCE = load();
    }
}
