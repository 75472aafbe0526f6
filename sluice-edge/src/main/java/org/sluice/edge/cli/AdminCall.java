package org.sluice.edge.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.util.Map;
import picocli.CommandLine;

/**
 * The part every admin-API command shares, so that each states only its path and what it
 * prints: make the client (exit {@link AdminClient#EXIT_UNREACHABLE} with {@code sluice: why}
 * on stderr when it cannot ask), check the answer's status, and either print the answer
 * (exit {@link AdminClient#EXIT_OK}) or print the server's refusal on stderr (exit
 * {@link AdminClient#EXIT_REFUSED}).
 */
final class AdminCall {

    private AdminCall() {
    }

    /** What a command does with a client; returns its exit code. */
    @FunctionalInterface
    interface Body {
        int run(AdminClient client) throws AdminClient.Unreachable, InterruptedException;
    }

    /** Prints an accepted answer's body. */
    @FunctionalInterface
    interface Printer {
        void print(PrintWriter out, JsonNode body);
    }

    /** Runs {@code body} with a client made from {@code options} and {@code env}. */
    static int run(CommandLine.Model.CommandSpec spec, AdminClientOptions options, Map<String, String> env, Body body)
            throws InterruptedException {
        try {
            return body.run(AdminClient.from(options, env));
        } catch (AdminClient.Unreachable e) {
            spec.commandLine().getErr().println("sluice: " + e.getMessage());
            return AdminClient.EXIT_UNREACHABLE;
        }
    }

    /** Prints the answer with {@code printer} when its status is {@code expected}; otherwise refuses. */
    static int expect(CommandLine.Model.CommandSpec spec, AdminClient.Answer answer, int expected, Printer printer) {
        if (answer.status() != expected) {
            return refused(spec, answer);
        }
        printer.print(spec.commandLine().getOut(), answer.body());
        return AdminClient.EXIT_OK;
    }

    /** The server refused: its status, error and message on stderr. */
    static int refused(CommandLine.Model.CommandSpec spec, AdminClient.Answer answer) {
        spec.commandLine().getErr().println("sluice: the server refused: " + answer.describe());
        return AdminClient.EXIT_REFUSED;
    }
}
