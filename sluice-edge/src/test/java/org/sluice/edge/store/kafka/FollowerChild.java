package org.sluice.edge.store.kafka;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.sluice.core.Clock;
import org.sluice.edge.delivery.Dispatcher;
import org.sluice.edge.delivery.http.HttpDeliveryClient;
import org.sluice.edge.store.rocks.RocksHookStore;

/**
 * Child process for {@link LogFollowerTest}'s kill test: one node's delivery side (a
 * working set on a data dir, a dispatcher to one HTTP destination {@code crm} retrying
 * quickly, a follower), run until killed. Prints {@code owned <n>} whenever the number of
 * hooks partitions it owns changes. args: bootstrap servers, topic prefix, data dir,
 * destination URL, session timeout in ms.
 */
public final class FollowerChild {

    private FollowerChild() {
    }

    public static void main(String[] args) throws Exception {
        RocksHookStore store = RocksHookStore.open(Path.of(args[2]));
        Dispatcher dispatcher = new Dispatcher(List.of(LogFollowerTest.quickHttp("crm", URI.create(args[3]))), store,
                Clock.system(), System::currentTimeMillis, new SimpleMeterRegistry(), new SplittableRandom(7),
                (kind, ofKind, w) -> HttpDeliveryClient.forDestinations(ofKind, org.sluice.edge.netio.TestTransport.io(), null, w));
        LogFollower follower = new LogFollower(FollowerSettings.of(List.of(args[0]), args[1], Map.of())
                .withSessionTimeout(Duration.ofMillis(Long.parseLong(args[4]))).withCommitInterval(Duration.ofMillis(200)),
                store, Clock.system());
        dispatcher.start();
        follower.start();
        Set<Integer> shown = null;
        while (true) { // until killed
            Set<Integer> owned = follower.ownedPartitions();
            if (!owned.equals(shown)) {
                System.out.println("owned " + owned.size());
                shown = owned;
            }
            Thread.sleep(50);
        }
    }
}
