package org.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class ChildJvmTest {

    private static final Duration WAIT = Duration.ofSeconds(60);

    @Test
    void capturesStdoutAndStderrAndExitCode() {
        try (ChildJvm child = ChildJvm.start(ChildMain.class, "echo", "one", "two words")) {
            assertThat(child.waitFor(WAIT)).isZero();
            assertThat(child.stdoutLines()).containsExactly("one", "two words");
            assertThat(child.stderrLines()).contains("to stderr");
        }
    }

    @Test
    void reportsTheExitCode() {
        try (ChildJvm child = ChildJvm.start(ChildMain.class, "exit", "7")) {
            assertThat(child.waitFor(WAIT)).isEqualTo(7);
        }
    }

    @Test
    void passesEnvironment() {
        try (ChildJvm child = ChildJvm.builder(ChildMain.class).args("env", "SLUICE_CHILD_TEST").env("SLUICE_CHILD_TEST", "x1").start()) {
            assertThat(child.waitFor(WAIT)).isZero();
            assertThat(child.stdoutLines()).containsExactly("env=x1");
        }
    }

    @Test
    void killSendsSigkillAndTerminateSendsSigterm() {
        try (ChildJvm a = ChildJvm.start(ChildMain.class, "hang"); ChildJvm b = ChildJvm.start(ChildMain.class, "hang")) {
            assertThat(a.awaitLine(l -> l.startsWith("pid="), WAIT)).isEqualTo("pid=" + a.pid());
            b.awaitLine(l -> l.startsWith("pid="), WAIT);
            a.kill();
            b.terminate();
            assertThat(a.waitFor(WAIT)).isEqualTo(128 + 9);
            assertThat(b.waitFor(WAIT)).isEqualTo(128 + 15);
            assertThat(a.isAlive()).isFalse();
        }
    }

    @Test
    void awaitLineFailsWhenTheChildExitsWithoutPrintingIt() {
        try (ChildJvm child = ChildJvm.start(ChildMain.class, "echo", "nope")) {
            assertThatThrownBy(() -> child.awaitLine("never"::equals, WAIT))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("closed stdout");
        }
    }

    @Test
    void waitForTimesOutOnARunningChild() {
        try (ChildJvm child = ChildJvm.start(ChildMain.class, "hang")) {
            child.awaitLine(l -> l.startsWith("pid="), WAIT);
            assertThatThrownBy(() -> child.waitFor(Duration.ofMillis(50)))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("still running");
            assertThat(child.isAlive()).isTrue();
        }
    }
}
