package org.sluice.testkit.apifixture;

/** Package-private: not in the API even though its method is public. */
final class Hidden {
    public void notApi() {
    }
}
