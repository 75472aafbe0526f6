package org.sluice.edge.config;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.sluice.edge.dedupe.DedupeSpec;
import org.sluice.edge.route.EventType;
import org.sluice.edge.route.Filter;
import org.sluice.edge.verify.VerifySpec;

/**
 * {@code sources.<id>:} one webhook source, reached at {@code POST {prefix}/{id}} (or
 * {@code {prefix}/{tenant}/{id}} under {@code tenant_path} routing).
 *
 * @param id             the key under {@code sources}, {@code [A-Za-z0-9_-]{1,64}}
 * @param tenant         {@code sources.<id>.tenant}: the owning tenant; empty for a shared
 *                       source (under {@code path} routing its hooks belong to tenant
 *                       {@value #SHARED_TENANT}; under {@code tenant_path} any tenant may use it)
 * @param verify         {@code sources.<id>.verify} (required; {@code {scheme: none}} accepts
 *                       unsigned hooks)
 * @param dedupe         {@code sources.<id>.dedupe}, default {@link DedupeSpec#NONE}
 * @param bytesPerSecond the body-bytes ceiling in force for this source:
 *                       {@code sources.<id>.bytes_per_second} when set, else
 *                       {@code rate_limits.sources.default.bytes_per_second}
 * @param deliverTo      {@code sources.<id>.deliver_to}: the destinations each accepted hook
 *                       is handed on to, in file order, each named once; empty: stored only
 * @param filters        the {@code when:} filter of each filtered entry of {@code deliver_to},
 *                       by destination name; a destination without one gets every hook
 * @param storeHeaders   {@code sources.<id>.store_headers}: which received headers are stored
 * @param eventType      {@code sources.<id>.event_type}: where its hooks name their event type,
 *                       by default the provider's ({@link EventType#defaultFor})
 */
public record SourceConfig(
        String id,
        Optional<String> tenant,
        VerifySpec verify,
        DedupeSpec dedupe,
        long bytesPerSecond,
        List<String> deliverTo,
        Map<String, Filter> filters,
        StoreHeaders storeHeaders,
        EventType eventType) {

    /** The tenant that owns the hooks of a shared source under {@code path} routing. */
    public static final String SHARED_TENANT = "default";

    public SourceConfig {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(tenant, "tenant");
        Objects.requireNonNull(verify, "verify");
        Objects.requireNonNull(dedupe, "dedupe");
        deliverTo = List.copyOf(deliverTo);
        filters = Map.copyOf(filters);
        Objects.requireNonNull(storeHeaders, "storeHeaders");
        Objects.requireNonNull(eventType, "eventType");
    }

    /** A source whose hooks name their event type the way its provider does. */
    public SourceConfig(String id, Optional<String> tenant, VerifySpec verify, DedupeSpec dedupe, long bytesPerSecond,
                        List<String> deliverTo, Map<String, Filter> filters, StoreHeaders storeHeaders) {
        this(id, tenant, verify, dedupe, bytesPerSecond, deliverTo, filters, storeHeaders,
                EventType.defaultFor(verify.scheme()));
    }

    /** A source whose hooks all go to every destination of {@code deliverTo}, stored with the needed headers only. */
    public SourceConfig(String id, Optional<String> tenant, VerifySpec verify, DedupeSpec dedupe, long bytesPerSecond,
                        List<String> deliverTo) {
        this(id, tenant, verify, dedupe, bytesPerSecond, deliverTo, Map.of(), StoreHeaders.NEEDED);
    }

    /** A source with {@code deliver_to} filters, stored with the needed headers only. */
    public SourceConfig(String id, Optional<String> tenant, VerifySpec verify, DedupeSpec dedupe, long bytesPerSecond,
                        List<String> deliverTo, Map<String, Filter> filters) {
        this(id, tenant, verify, dedupe, bytesPerSecond, deliverTo, filters, StoreHeaders.NEEDED);
    }

    /** A source whose hooks all go to every destination of {@code deliverTo}, stored with {@code storeHeaders}. */
    public SourceConfig(String id, Optional<String> tenant, VerifySpec verify, DedupeSpec dedupe, long bytesPerSecond,
                        List<String> deliverTo, StoreHeaders storeHeaders) {
        this(id, tenant, verify, dedupe, bytesPerSecond, deliverTo, Map.of(), storeHeaders);
    }

    /** A source that delivers nowhere (its hooks are stored only). */
    public SourceConfig(String id, Optional<String> tenant, VerifySpec verify, DedupeSpec dedupe, long bytesPerSecond) {
        this(id, tenant, verify, dedupe, bytesPerSecond, List.of());
    }

    /** True when no tenant owns this source. */
    public boolean isShared() {
        return tenant.isEmpty();
    }

    /** Never prints the secrets. */
    @Override
    public String toString() {
        return "SourceConfig[id=" + id + ", tenant=" + tenant.orElse("<shared>")
                + ", verify=" + verify.scheme() + " (" + verify.secrets().size() + " secrets)"
                + ", dedupe=" + dedupe + ", bytesPerSecond=" + bytesPerSecond + ", deliverTo=" + deliverTo
                + (filters.isEmpty() ? "" : ", filters=" + filters.keySet()) + ", storeHeaders=" + storeHeaders + ", eventType=" + eventType + "]";
    }
}
