package org.sluice.testkit;

/** Child process for {@link ChildJvmTest}: {@code echo ARGS...}, {@code exit CODE}, {@code env NAME} or {@code hang}. */
public final class ChildMain {

    private ChildMain() {
    }

    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "echo" -> {
                for (int i = 1; i < args.length; i++) {
                    System.out.println(args[i]);
                }
                System.err.println("to stderr");
            }
            case "exit" -> System.exit(Integer.parseInt(args[1]));
            case "env" -> System.out.println("env=" + System.getenv(args[1]));
            case "hang" -> {
                System.out.println("pid=" + ProcessHandle.current().pid());
                System.out.flush();
                Thread.sleep(Long.MAX_VALUE);
            }
            default -> throw new IllegalArgumentException("unknown mode " + args[0]);
        }
    }
}
