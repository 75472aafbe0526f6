package org.sluice.edge.netio;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/** {@code http.transport}: what {@code auto} picks and what it says, and why io_uring is refused. */
class TransportChoiceTest {

    private static final String LINUX = "Linux";
    private static final String NEW_KERNEL = "6.8.0-45-generic";
    private static final RuntimeException EPERM = new RuntimeException("failed to create io_uring ring fd Operation not permitted");

    @Test
    void autoTakesIoUringWhereTheKernelAllowsIt() {
        TransportChoice choice = TransportChoice.auto(Optional.empty(), Optional.empty());
        assertThat(choice.transport()).isEqualTo(IoTransport.IO_URING);
        assertThat(choice).hasToString("io_uring (auto: io_uring available)");
    }

    @Test
    void autoFallsBackToEpollAndSaysWhyIoUringWasRefused() {
        TransportChoice choice = TransportChoice.auto(Optional.of("io_uring_disabled: kernel.io_uring_disabled is 2"),
                Optional.empty());
        assertThat(choice.transport()).isEqualTo(IoTransport.EPOLL);
        assertThat(choice).hasToString("epoll (auto: io_uring refused: io_uring_disabled: kernel.io_uring_disabled is 2)");
    }

    @Test
    void autoEndsOnNioWhenNeitherNativeTransportRuns() {
        TransportChoice choice = TransportChoice.auto(Optional.of("native library unavailable: x"),
                Optional.of("epoll unavailable: y"));
        assertThat(choice.transport()).isEqualTo(IoTransport.NIO);
        assertThat(choice.reason()).isEqualTo("auto: io_uring refused: native library unavailable: x; epoll unavailable: y");
    }

    @Test
    void aNamedTransportThatRunsIsTakenAsNamed() {
        TransportChoice nio = TransportChoice.named("http.transport", IoTransport.NIO);
        assertThat(nio).hasToString("nio (http.transport: nio)");
    }

    @Test
    void aNamedTransportThatCannotRunFailsTheBootNamingTheKeyAndTheReason() {
        for (IoTransport transport : IoTransport.values()) {
            Optional<String> refusal = transport.unavailability();
            if (refusal.isPresent()) {
                assertThatThrownBy(() -> TransportChoice.named("http.transport", transport))
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessage("http.transport is " + transport.configName() + ", which cannot run here: "
                                + refusal.get() + " (set http.transport: auto to fall back)");
            } else {
                assertThat(TransportChoice.named("http.transport", transport).transport()).isEqualTo(transport);
            }
        }
    }

    // ------------------------------------------------------------------ why io_uring is refused

    @Test
    void theIoUringDisabledSysctlIsNamedFirst() {
        assertThat(IoUringProbe.explain(EPERM, LINUX, NEW_KERNEL, "2\n", "2"))
                .startsWith("io_uring_disabled: kernel.io_uring_disabled is 2 (no process may create rings); ")
                .endsWith("Operation not permitted");
        assertThat(IoUringProbe.explain(EPERM, LINUX, NEW_KERNEL, "1\n", "0"))
                .startsWith("io_uring_disabled: kernel.io_uring_disabled is 1 (only members of kernel.io_uring_group");
    }

    @Test
    void aKernelOlderThan514IsAnOldKernel() {
        assertThat(IoUringProbe.explain(new UnsupportedOperationException("kernel too old"), LINUX, "5.10.0-28-amd64",
                "0", "0")).startsWith("old kernel: 5.10.0-28-amd64 is older than 5.14");
        assertThat(IoUringProbe.olderThanMinimum("4.19.0")).isTrue();
        assertThat(IoUringProbe.olderThanMinimum("5.14.0")).isFalse();
        assertThat(IoUringProbe.olderThanMinimum("6.1")).isFalse();
        assertThat(IoUringProbe.olderThanMinimum("unknown")).isFalse();
    }

    @Test
    void aLibraryThatDidNotLoadIsNamedAsSuch() {
        Throwable link = new IllegalStateException("probe", new UnsatisfiedLinkError("no netty_transport_native_io_uring42"));
        assertThat(IoUringProbe.explain(link, LINUX, NEW_KERNEL, "0", "0"))
                .isEqualTo("native library unavailable: UnsatisfiedLinkError: no netty_transport_native_io_uring42");
        assertThat(IoUringProbe.explain(link, "Mac OS X", "14.1", null, null))
                .isEqualTo("native library unavailable: io_uring is Linux only, this is Mac OS X");
    }

    @Test
    void aRefusedSetupUnderASeccompFilterIsSeccomp() {
        assertThat(IoUringProbe.explain(EPERM, LINUX, NEW_KERNEL, "0", "2"))
                .startsWith("seccomp: a seccomp filter on this process refuses io_uring_setup");
        // without a filter the same refusal is reported as Netty words it
        assertThat(IoUringProbe.explain(EPERM, LINUX, NEW_KERNEL, "0", "0"))
                .isEqualTo("RuntimeException: failed to create io_uring ring fd Operation not permitted");
    }

    @Test
    void aRingOverTheMemlockLimitIsMemlock() {
        assertThat(IoUringProbe.explain(new RuntimeException("failed to create io_uring ring fd Cannot allocate memory"),
                LINUX, NEW_KERNEL, "0", "0")).startsWith("memlock: ");
    }

    @Test
    void theSeccompModeIsReadFromProcSelfStatus() {
        assertThat(IoUringProbe.seccompMode("Name:\tjava\nSeccomp:\t2\nSeccomp_filters:\t1\n")).isEqualTo("2");
        assertThat(IoUringProbe.seccompMode("Name:\tjava\n")).isNull();
        assertThat(IoUringProbe.seccompMode(null)).isNull();
    }
}
