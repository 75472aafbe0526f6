package org.sluice.edge.intake;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import org.sluice.edge.store.CommitResult;
import org.sluice.edge.store.HookStore;
import org.sluice.edge.store.Hooks;
import org.sluice.edge.store.rocks.RocksHookStore;

/**
 * Child process for {@link IntakeCrashTest}: opens the store, starts an Intake, and has
 * several threads submit hooks until killed, each dedupe key twice (so copies race each
 * other). Prints {@code acked <id> <key> <n>} (n counts acknowledgements) the moment a future completes ACCEPTED and
 * {@code dup <id> <key>} for a DUPLICATE. A SIGTERM runs the shutdown hook: close the
 * intake (flushing the queue), close the store, print {@code closed}.
 *
 * <p>args: data dir, submitter threads, hooks in flight per thread
 */
public final class LoadChild {

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        int threads = Integer.parseInt(args[1]);
        int inFlight = Integer.parseInt(args[2]);
        HookStore store = RocksHookStore.open(dir);
        Intake intake = Intake.start(store, IntakeSettings.defaults().withMaxBatch(32), new SimpleMeterRegistry());
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            intake.close();
            store.close();
            System.out.println("closed");
            System.out.flush();
        }, "shutdown"));
        AtomicLong next = new AtomicLong();
        AtomicLong acks = new AtomicLong();
        for (int t = 0; t < threads; t++) {
            Thread submitter = new Thread(() -> {
                Semaphore window = new Semaphore(inFlight);
                while (true) {
                    window.acquireUninterruptibly();
                    String key = "k" + (next.getAndIncrement() / 2);
                    var unused = intake.submit(Hooks.hook(key)).thenAccept(r -> { // prints the answer; nobody waits
                        if (r.status() == CommitResult.Status.ACCEPTED) {
                            System.out.println("acked " + r.id() + " " + key + " " + acks.incrementAndGet());
                        } else if (r.status() == CommitResult.Status.DUPLICATE) {
                            System.out.println("dup " + r.id() + " " + key);
                        }
                        window.release();
                    });
                }
            }, "submitter-" + t);
            submitter.setDaemon(true);
            submitter.start();
        }
        System.out.println("ready");
        Thread.currentThread().join(); // until a signal ends the process
    }
}
