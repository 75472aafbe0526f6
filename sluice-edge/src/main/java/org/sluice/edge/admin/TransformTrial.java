package org.sluice.edge.admin;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.sluice.edge.delivery.Destination;
import org.sluice.edge.delivery.targets.HttpTarget;
import org.sluice.edge.route.Transform;

/**
 * {@code POST /v1/destinations/{name}/transform:test}: what a destination's transformation
 * makes of a stored hook ({@code {"hook":"<id>"}}) or of a body given in the request
 * ({@code {"body":"...","tenant":"...","source":"..."}}), without sending anything or
 * changing any state. It answers the method, the URL, the headers the transformation sets
 * (Sluice's own and the signature are added at each attempt) and the body as text; a
 * failure is {@code 422 transform_error} with its reason, as the delivery would record it.
 */
final class TransformTrial {

    private TransformTrial() {
    }

    static AdminResponse run(Destination d, byte[] requestBody, HookReader hooks) {
        if (d.transform().isEmpty() || !(d.target() instanceof HttpTarget target)) {
            return AdminResponse.json(409, AdminJson.error("no_transform",
                    "destination " + d.name() + " has no transform to test"));
        }
        Map<String, Object> req = AdminJson.readObject(requestBody);
        if (req == null || req.containsKey("hook") == req.containsKey("body")
                || !req.keySet().stream().allMatch(k -> k.equals("hook") || k.equals("body") || k.equals("tenant")
                        || k.equals("source"))
                || !req.values().stream().allMatch(v -> v instanceof String)) {
            return AdminResponse.json(400, AdminJson.error("invalid_transform_test",
                    "the body must be one JSON object with either \"hook\" (a stored hook's id) or \"body\" (text), "
                            + "and optionally \"tenant\" and \"source\" beside \"body\", all strings"));
        }
        Transform.Input input;
        if (req.containsKey("hook")) {
            Optional<HookReader.Hook> hook = hooks.get((String) req.get("hook"));
            if (hook.isEmpty()) {
                return AdminResponse.json(404, AdminJson.error("hook_not_found"));
            }
            HookReader.Hook h = hook.get();
            input = new Transform.Input(h.id(), h.tenant(), h.source(), h.body());
        } else {
            input = new Transform.Input("msg_transform_test", (String) req.getOrDefault("tenant", ""),
                    (String) req.getOrDefault("source", ""), ((String) req.get("body")).getBytes(StandardCharsets.UTF_8));
        }
        Transform.Outcome o = d.transform().get().apply(input, Transform.cpuClock());
        if (o instanceof Transform.Outcome.Failed f) {
            return AdminResponse.json(422, AdminJson.error("transform_error", f.reason()));
        }
        Transform.Request r = ((Transform.Outcome.Shaped) o).request();
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("method", r.method() == null ? "POST" : r.method());
        java.net.URI url = target.url();
        out.put("url", url.getScheme() + "://" + url.getRawAuthority() + r.target(url));
        Map<String, String> headers = new LinkedHashMap<>();
        r.headers().forEach(h -> headers.put(h.getKey(), h.getValue()));
        if (r.body() != null) {
            headers.putIfAbsent("content-type", "application/json");
        }
        out.put("headers", headers);
        out.put("body", new String(r.body() != null ? r.body() : input.body(), StandardCharsets.UTF_8));
        return AdminResponse.json(200, AdminJson.encode(out));
    }
}
