package org.sluice.edge.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.sluice.edge.verify.VerifyOutcome;

/** {@link Router}: step 1's routes under {@code routing: path} and {@code routing: tenant_path}. */
class RouterTest {

    private static SourceRoute source(String id, String tenant) {
        return new SourceRoute(id, tenant, (headers, body, now) -> VerifyOutcome.OK, (headers, body) -> null);
    }

    private static final SourceRoute SHARED = source("shared", null);
    private static final SourceRoute OWNED = source("owned", "acme");

    private final Router byPath = new Router("/hooks/", false, Map.of("shared", SHARED, "owned", OWNED));
    private final Router byTenantPath = new Router("/hooks", true, Map.of("shared", SHARED, "owned", OWNED));

    @Test
    void underPathASourcesHooksGoToItsTenantOrTheDefaultOne() {
        assertThat(byPath.route("POST", "/hooks/shared?x=1")).isEqualTo(new Router.Route(Router.Kind.INGEST, SHARED, "default"));
        assertThat(byPath.route("POST", "/hooks/owned")).isEqualTo(new Router.Route(Router.Kind.INGEST, OWNED, "acme"));
        assertThat(byPath.route("POST", "/hooks/nope").kind()).isEqualTo(Router.Kind.UNKNOWN_SOURCE);
        assertThat(byPath.route("POST", "/hooks/acme/shared").kind()).isEqualTo(Router.Kind.NOT_FOUND);
        assertThat(byPath.route("POST", "/hooks/").kind()).isEqualTo(Router.Kind.NOT_FOUND);
        assertThat(byPath.route("GET", "/hooks/shared").kind()).isEqualTo(Router.Kind.NOT_FOUND);
        assertThat(byPath.route("POST", "/other/shared").kind()).isEqualTo(Router.Kind.NOT_FOUND);
    }

    @Test
    void probesAnswerToGetAndHeadOnly() {
        assertThat(byPath.route("GET", "/healthz").kind()).isEqualTo(Router.Kind.HEALTH);
        assertThat(byPath.route("HEAD", "/readyz?verbose").kind()).isEqualTo(Router.Kind.READY);
        assertThat(byPath.route("POST", "/healthz").kind()).isEqualTo(Router.Kind.NOT_FOUND);
    }

    @Test
    void underTenantPathTheTenantIsInThePathAndAnOwnedSourceTakesOnlyItsOwner() {
        assertThat(byTenantPath.route("POST", "/hooks/beta/shared"))
                .isEqualTo(new Router.Route(Router.Kind.INGEST, SHARED, "beta"));
        assertThat(byTenantPath.route("POST", "/hooks/acme/owned"))
                .isEqualTo(new Router.Route(Router.Kind.INGEST, OWNED, "acme"));
        assertThat(byTenantPath.route("POST", "/hooks/beta/owned").kind()).isEqualTo(Router.Kind.UNKNOWN_SOURCE);
        assertThat(byTenantPath.route("POST", "/hooks/shared").kind()).isEqualTo(Router.Kind.NOT_FOUND);
        assertThat(byTenantPath.route("POST", "/hooks/beta/shared/x").kind()).isEqualTo(Router.Kind.NOT_FOUND);
        assertThat(byTenantPath.route("POST", "/hooks/not a tenant/shared").kind()).isEqualTo(Router.Kind.NOT_FOUND);
    }

    @Test
    void theFastPathMatchesExactlyThePathsRouteAnswersAsIngest() {
        assertThat(byTenantPath.ingestPaths()).isEmpty();
        assertThat(byPath.ingestPaths()).hasSize(2).allSatisfy(path -> {
            String uri = new String(path.path(), StandardCharsets.UTF_8);
            assertThat(byPath.route("POST", uri)).isEqualTo(new Router.Route(Router.Kind.INGEST, path.source(), path.tenant()));
        });
    }
}
