package org.sluice.edge.admin;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

/**
 * The web console's static files, {@code GET /console} and below, read from the jar once
 * at class load and answered from memory (so the admin event loop never touches a file).
 * Nothing is fetched from a network: the console's own files are under
 * {@code src/main/resources/console/}, the chart library is the uPlot WebJar's.
 *
 * <p>Served <b>without</b> the admin token: a browser navigating to a page cannot send a
 * bearer header. The files hold no data; the page asks the operator for the token and
 * sends it with every {@code /v1} call, where it is checked as for any client.
 *
 * <p>Every answer carries a strict {@code Content-Security-Policy} (no inline script or
 * style, no other origin), {@code X-Frame-Options: DENY},
 * {@code Referrer-Policy: no-referrer} and {@code X-Content-Type-Options: nosniff}.
 */
final class ConsoleAssets {

    static final String PREFIX = "/console";
    static final String CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
            + "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

    private static final String UPLOT_POM = "META-INF/maven/org.webjars.npm/uplot/pom.properties";

    private record Asset(String contentType, byte[] body) {
    }

    private static final Map<String, Asset> ASSETS = load();

    private ConsoleAssets() {
    }

    /** True for {@code /console} and the paths below it. */
    static boolean owns(String path) {
        return path.equals(PREFIX) || path.startsWith(PREFIX + "/");
    }

    /** The answer to {@code method path}, a path this class {@link #owns}. */
    static AdminResponse answer(String method, String path) {
        if (!method.equals("GET")) {
            return secured(AdminResponse.json(405, AdminJson.error("method_not_allowed")).withHeader("Allow", "GET"));
        }
        Asset asset = ASSETS.get(path.equals(PREFIX) ? PREFIX + "/" : path);
        if (asset == null) {
            return secured(AdminResponse.json(404, AdminJson.error("not_found")));
        }
        byte[] body = asset.body();
        AdminResponse ok = new AdminResponse(200, Map.of("Content-Type", asset.contentType(),
                "Cache-Control", "no-cache"), body);
        return secured(ok);
    }

    private static AdminResponse secured(AdminResponse response) {
        return response.withHeader("Content-Security-Policy", CSP)
                .withHeader("X-Frame-Options", "DENY")
                .withHeader("Referrer-Policy", "no-referrer")
                .withHeader("X-Content-Type-Options", "nosniff");
    }

    private static Map<String, Asset> load() {
        Map<String, Asset> out = new LinkedHashMap<>();
        String html = "text/html; charset=utf-8";
        String js = "text/javascript; charset=utf-8";
        String css = "text/css; charset=utf-8";
        out.put(PREFIX + "/", new Asset(html, resource("console/index.html")));
        out.put(PREFIX + "/console.js", new Asset(js, resource("console/console.js")));
        out.put(PREFIX + "/console.css", new Asset(css, resource("console/console.css")));
        String uplot = "META-INF/resources/webjars/uplot/" + uplotVersion() + "/dist/";
        out.put(PREFIX + "/uplot/uPlot.iife.min.js", new Asset(js, resource(uplot + "uPlot.iife.min.js")));
        out.put(PREFIX + "/uplot/uPlot.min.css", new Asset(css, resource(uplot + "uPlot.min.css")));
        return Map.copyOf(out);
    }

    /** The version of the uPlot WebJar on the class path, from its Maven descriptor. */
    private static String uplotVersion() {
        Properties pom = new Properties();
        try (InputStream in = open(UPLOT_POM)) {
            pom.load(new java.io.InputStreamReader(in, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + UPLOT_POM, e);
        }
        return pom.getProperty("version");
    }

    private static byte[] resource(String name) {
        try (InputStream in = open(name)) {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the console file " + name + " from the class path", e);
        }
    }

    private static InputStream open(String name) throws IOException {
        InputStream in = ConsoleAssets.class.getClassLoader().getResourceAsStream(name);
        if (in == null) {
            throw new IOException("the console file " + name + " is missing from the class path");
        }
        return in;
    }
}
