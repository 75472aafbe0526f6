package org.sluice.edge.delivery;

import java.util.random.RandomGenerator;

/** A random source that always draws the lowest or the highest value of a bounded range. */
final class FixedRandom implements RandomGenerator {

    static final FixedRandom LOWEST = new FixedRandom(false);
    static final FixedRandom HIGHEST = new FixedRandom(true);

    private final boolean highest;

    private FixedRandom(boolean highest) {
        this.highest = highest;
    }

    @Override
    public long nextLong() {
        throw new UnsupportedOperationException("only bounded draws are scripted");
    }

    @Override
    public long nextLong(long bound) {
        return highest ? bound - 1 : 0;
    }
}
