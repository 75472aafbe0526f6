package org.sluice.edge.verify;

import java.util.Map;
import java.util.TreeMap;

/** A case-insensitive header map for tests, as the HTTP layer presents headers. */
final class TestHeaders implements HeaderLookup {

    private final Map<String, String> map = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);

    static TestHeaders of(Map<String, String> headers) {
        TestHeaders h = new TestHeaders();
        h.map.putAll(headers);
        return h;
    }

    static TestHeaders of(String... nameValues) {
        TestHeaders h = new TestHeaders();
        for (int i = 0; i < nameValues.length; i += 2) {
            h.map.put(nameValues[i], nameValues[i + 1]);
        }
        return h;
    }

    TestHeaders with(String name, String value) {
        TestHeaders h = new TestHeaders();
        h.map.putAll(map);
        if (value == null) {
            h.map.remove(name);
        } else {
            h.map.put(name, value);
        }
        return h;
    }

    TestHeaders without(String name) {
        return with(name, null);
    }

    @Override
    public String get(String name) {
        return map.get(name);
    }
}
