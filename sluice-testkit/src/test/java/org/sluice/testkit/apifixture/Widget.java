package org.sluice.testkit.apifixture;

import java.io.IOException;
import java.util.List;

/** A class whose API {@code ApiDumpTest} knows by heart: one member of each kind and visibility. */
public class Widget<T extends Comparable<T>> implements Comparable<Widget<T>> {

    public static final int SIZE = 3;
    protected long count;
    int hidden;

    public Widget() {
    }

    protected Widget(List<T> items) throws IOException {
    }

    Widget(int hidden) {
    }

    public static <U> List<U> listOf(U... items) {
        return List.of(items);
    }

    @Override
    public int compareTo(Widget<T> o) {
        return 0;
    }

    protected void grow() {
    }

    void packagePrivate() {
    }

    private void secret() {
    }

    /** Reachable: public in a public class. */
    public enum Kind { A, B }

    /** Not reachable: package-private. */
    static final class Helper {
        public void visibleButUnreachable() {
        }
    }
}
