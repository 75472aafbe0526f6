package org.sluice.bench.shm;

import java.net.InetAddress;
import java.net.ServerSocket;

/** Prints a loopback TCP port the OS says is free (for the benchmark script's redis-server). */
public final class FreePort {

    private FreePort() {
    }

    public static void main(String[] args) throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            System.out.println(s.getLocalPort());
        }
    }
}
