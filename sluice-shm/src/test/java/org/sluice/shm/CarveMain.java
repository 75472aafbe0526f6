package org.sluice.shm;

import java.nio.file.Path;
import java.time.Duration;

/**
 * A child process for {@link MultiProcessTest}: at the go signal, create-or-attach the
 * arena and carve one rate, then take tokens from key "k" with a frozen clock until
 * refused.
 *
 * <pre>
 * args: file limit windowMillis slots frozenNanos goFile
 * prints: "ready", then "carved OFFSET" and "took N", or "refused MESSAGE"
 * </pre>
 */
public final class CarveMain {

    private CarveMain() {
    }

    public static void main(String[] args) throws Exception {
        Path file = Path.of(args[0]);
        long limit = Long.parseLong(args[1]);
        Duration window = Duration.ofMillis(Long.parseLong(args[2]));
        int slots = Integer.parseInt(args[3]);
        long frozen = Long.parseLong(args[4]);
        SharedRate.Policy.of(limit, window); // load the classes before the race
        System.out.println("ready");
        HammerMain.awaitGo(Path.of(args[5]));
        try (SharedArena arena = SharedArena.create(file, 1 << 20)) {
            SharedRate rate = arena.rate("race", limit, window, slots, () -> frozen);
            int offset = arena.carve("race", ArenaLayout.KIND_RATE, limit, window.toNanos(), SlotTable.roundSlots("slots", slots));
            System.out.println("carved " + offset);
            long took = 0;
            while (rate.allow("k")) {
                took++;
            }
            System.out.println("took " + took);
        } catch (IllegalArgumentException e) {
            System.out.println("refused " + e.getMessage());
        }
    }
}
