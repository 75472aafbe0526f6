package org.sluice.edge.config;

import java.util.ArrayList;
import java.util.List;

/** The problems found so far; the walk goes on after each so that all are reported at once. */
final class Problems {

    private final List<String> list = new ArrayList<>();

    void add(String message) {
        list.add(message);
    }

    boolean isEmpty() {
        return list.isEmpty();
    }

    int size() {
        return list.size();
    }

    List<String> list() {
        return List.copyOf(list);
    }
}
