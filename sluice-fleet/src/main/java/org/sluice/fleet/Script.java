package org.sluice.fleet;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/** A Lua script shipped as a class-path resource, with its SHA-1 as Redis computes it. */
record Script(String name, String body, String sha) {

    /** Loads {@code /org/sluice/fleet/<name>}. */
    static Script load(String name) {
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

    /**
     * {@code EVALSHA}; on {@code NOSCRIPT}, {@code EVAL} with the body once (which also
     * caches it). The result completes when the command does (Lettuce's command timeout
     * bounds both), including when the second command cannot even be written.
     */
    public <T> CompletableFuture<T> eval(RedisLink.Channel ch, ScriptOutputType type, String[] keys, String... args) {
        CompletableFuture<T> result = new CompletableFuture<>();
        RedisFuture<T> first = ch.scripting().evalsha(sha, type, keys, args);
        first.whenComplete((value, err) -> {
            if (err == null) {
                result.complete(value);
            } else if (err instanceof RedisNoScriptException
                    || (err instanceof CompletionException && err.getCause() instanceof RedisNoScriptException)) {
                try {
                    RedisFuture<T> again = ch.scripting().eval(body, type, keys, args);
                    again.whenComplete((v, e) -> {
                        if (e == null) {
                            result.complete(v);
                        } else {
                            result.completeExceptionally(e);
                        }
                    });
                } catch (RuntimeException e) {
                    result.completeExceptionally(e);
                }
            } else {
                result.completeExceptionally(err);
            }
        });
        return result;
    }

    public static final Script ADMIT = load("admit.lua");
    static final Script SETTLE = load("settle.lua");
    static final Script PACE = load("pace.lua");
    public static final Script HEARTBEAT = load("heartbeat.lua");
}
