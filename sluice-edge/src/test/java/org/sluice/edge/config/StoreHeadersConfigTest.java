package org.sluice.edge.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code sources.<id>.store_headers} (issue 46, point 11): needed by default, all, or names added; bad values named. */
class StoreHeadersConfigTest {

    private static StoreHeaders read(String value) {
        String extra = value == null ? "" : ", store_headers: " + value;
        return ConfigLoader.parse("sources: {s: {verify: {scheme: none}" + extra + "}}").sources().get("s").storeHeaders();
    }

    @Test
    void neededIsTheDefaultAndAllOrNamesAreRead() {
        assertThat(read(null)).isEqualTo(StoreHeaders.NEEDED);
        assertThat(read("needed")).isEqualTo(StoreHeaders.NEEDED);
        assertThat(read("all")).isEqualTo(StoreHeaders.ALL);
        assertThat(read("[X-Request-Id, User-Agent]")).isEqualTo(new StoreHeaders(false, List.of("X-Request-Id", "User-Agent")));
    }

    @Test
    void aBadValueNamesItsKeyPathAndValue() {
        ConfigException e = catchThrowableOfType(ConfigException.class, () -> read("some"));
        assertThat(e.errors()).containsExactly("sources.s.store_headers must be needed, all or a list of header names, got \"some\"");
        e = catchThrowableOfType(ConfigException.class, () -> read("[\"X Bad\"]"));
        assertThat(e.errors()).containsExactly("sources.s.store_headers[0] must be a header name (letters, digits and"
                + " !#$%&'*+-.^_`|~), got \"X Bad\"");
    }
}
