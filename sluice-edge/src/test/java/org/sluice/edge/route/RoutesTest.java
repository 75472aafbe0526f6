package org.sluice.edge.route;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A source's destinations after its filters: in deliver_to order, and one shared list when nothing is filtered. */
class RoutesTest {

    private static byte[] body(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void withoutFiltersEveryHookGetsTheSameListOfEveryDestination() {
        Routes routes = Routes.unfiltered(List.of("app", "audit"));
        List<String> first = routes.select(name -> null, body("{}"));
        assertThat(first).containsExactly("app", "audit");
        assertThat(routes.select(name -> null, body("not json"))).isSameAs(first); // nothing built per hook
        assertThat(Routes.unfiltered(List.of()).select(name -> null, body("{}"))).isEmpty();
    }

    @Test
    void filteredDestinationsAreKeptInDeliverToOrderWhenTheyMatch() {
        Routes routes = Routes.of(List.of("billing", "app", "audit"), Map.of(
                "billing", FilterTest.filter("{json: \"$.type\", prefix: invoice.}"),
                "audit", FilterTest.filter("{header: X-Audit, exists: true}")));
        assertThat(routes.all()).containsExactly("billing", "app", "audit");
        assertThat(routes.select(name -> null, body("{\"type\":\"invoice.paid\"}"))).containsExactly("billing", "app");
        assertThat(routes.select(name -> name.equalsIgnoreCase("x-audit") ? "1" : null, body("[]")))
                .containsExactly("app", "audit");
        assertThat(Routes.of(List.of("billing"), Map.of("billing", FilterTest.filter("{json: \"$.type\", exists: true}")))
                .select(name -> null, body("{}"))).isEmpty(); // matches none: stored, no deliveries
    }
}
