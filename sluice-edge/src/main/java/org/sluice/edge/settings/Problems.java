package org.sluice.edge.settings;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** The problems found so far; the walk goes on after each so that all are reported at once. */
public final class Problems {

    private final List<String> list = new ArrayList<>();
    private final Set<String> unresolved = new HashSet<>();

    public void add(String message) {
        int space = message.indexOf(' ');
        if (space > 0 && unresolved.contains(message.substring(0, space))) {
            return; // the value could not be substituted; that problem is already reported
        }
        list.add(message);
    }

    /**
     * Reports that the value at {@code path} could not be substituted, and silences any
     * later problem about the same path (the raw text would only produce a second,
     * misleading message).
     */
    public void unresolved(String path, String message) {
        list.add(message);
        unresolved.add(path);
    }

    public boolean isEmpty() {
        return list.isEmpty();
    }

    public int size() {
        return list.size();
    }

    public List<String> list() {
        return List.copyOf(list);
    }
}
