package org.sluice.edge.store;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/** Test fixtures: pending hooks. */
public final class Hooks {

    private Hooks() {
    }

    public static PendingHook hook(String tenant, String source, String key, String body) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Content-Type", "application/json");
        if (key != null) {
            headers.put("X-Event-Id", key);
        }
        return new PendingHook(tenant, source, key, 1_700_000_000_000L, headers, body.getBytes(StandardCharsets.UTF_8));
    }

    public static PendingHook hook(String key) {
        return hook("acme", "gh", key, "{\"k\":\"" + key + "\"}");
    }
}
