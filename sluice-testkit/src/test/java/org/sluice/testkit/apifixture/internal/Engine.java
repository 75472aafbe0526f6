package org.sluice.testkit.apifixture.internal;

/** Public, but under {@code internal}: not in the API. */
public final class Engine {
    public void run() {
    }
}
