package org.sluice.edge.delivery;

import java.util.Optional;
import org.sluice.edge.route.Transform;

import org.sluice.edge.delivery.targets.Target;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.sluice.edge.settings.Section;

/**
 * Reads the keys a destination {@code type} has of its own into its {@link Target}, and
 * the headers its attempts carry. The config's destination reader reads the keys every
 * type shares ({@link #COMMON_KEYS}) and hands the destination's section to the reader of
 * its type; each transport's room has its reader ({@code HttpReader}, {@code KafkaReader},
 * {@code NatsReader}).
 */
public interface TargetReader {

    /** The keys every destination type has. */
    List<String> COMMON_KEYS = List.of("type", "timeout_ms", "max_in_flight", "rate", "forward_headers",
            "ordering", "retry", "breaker", "disable_after");

    /**
     * What a reader read: each part null when a problem about it was recorded. Both are
     * always read, so that one load reports the problems of both.
     *
     * @param target  the destination's target
     * @param headers   what its attempts carry
     * @param transform how its attempts are reshaped; empty when it has no {@code transform}
     *                  (or a problem about it was recorded)
     */
    record Read(Target target, OutboundHeaders headers, Optional<Transform> transform) {
        /** A target whose attempts are sent as received. */
        public Read(Target target, OutboundHeaders headers) {
            this(target, headers, Optional.empty());
        }
    }

    /** The kind of target this reads: its {@code type} as written in the config is {@code kind().configName()}. */
    Target.Kind kind();

    /** Every key a destination of this type may have, in the order an unknown-key message lists them. */
    List<String> keys();

    /**
     * The target from the type's own keys of {@code s} and the headers of its attempts,
     * recording every problem in {@code s} (each naming its key path and the value).
     *
     * @param forward the destination's {@code forward_headers}; null when they had a problem
     */
    Read read(Section s, List<String> forward);

    /** A type's keys: the common ones, then {@code own}. */
    static List<String> withCommonKeys(List<String> own) {
        List<String> all = new ArrayList<>(COMMON_KEYS);
        all.addAll(own);
        return List.copyOf(all);
    }

    /**
     * The headers of the destination at {@code s}: forwarded, configured ({@code headers})
     * and Sluice's own, signed by {@code signer} (null: unsigned); null after recording a
     * problem, or when {@code forward} or {@code configured} is null (a problem recorded already).
     */
    static OutboundHeaders headers(Section s, List<String> forward, Map<String, String> configured, WebhookSigner signer) {
        if (forward == null || configured == null) {
            return null;
        }
        try {
            return OutboundHeaders.of(s.path(), forward, configured, signer, version());
        } catch (SettingsException bad) {
            bad.errors().forEach(s::problem);
            return null;
        }
    }

    /** Sluice's version for {@code user-agent}: the jar's, or {@code dev} when run from classes. */
    static String version() {
        String v = TargetReader.class.getPackage().getImplementationVersion();
        return v == null ? "dev" : v;
    }
}
