package org.sluice.fleet.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** A Lua script shipped as a class-path resource, with its SHA-1 as Redis computes it. */
public record Script(String name, String body, String sha) {

    /** Loads {@code /org/sluice/fleet/<name>}. */
    public static Script load(String name) {
        String path = "/org/sluice/fleet/" + name;
        try (InputStream in = Script.class.getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + path);
            }
            String body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            return new Script(name, body, sha1(body));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String sha1(String body) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-1").digest(body.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    public static final Script ADMIT = load("admit.lua");
    public static final Script SETTLE = load("settle.lua");
    public static final Script HEARTBEAT = load("heartbeat.lua");
}
