package org.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sluice.testkit.apifixture.Widget;

class ApiDumpTest {

    private static final String WIDGET_API = """
            public class org.sluice.testkit.apifixture.Widget<T extends java.lang.Comparable<T>> implements java.lang.Comparable<org.sluice.testkit.apifixture.Widget<T>> {
              protected long count
              public static final int SIZE
              protected <init>(java.util.List<T>) throws java.io.IOException
              public <init>()
              protected void grow()
              public int compareTo(org.sluice.testkit.apifixture.Widget<T>)
              public static <U> java.util.List<U> listOf(U...)
            }

            public enum org.sluice.testkit.apifixture.Widget$Kind {
            """;

    @Test
    void dumpListsPublicAndProtectedMembersOfReachableClassesOnly() {
        String api = ApiDump.of(Widget.class);

        assertThat(api).startsWith(WIDGET_API);
        assertThat(api).contains("  public static final org.sluice.testkit.apifixture.Widget$Kind A\n");
        assertThat(api).doesNotContain("hidden", "packagePrivate", "secret", "Helper", "Hidden", "notApi",
                "internal", "Engine");
    }

    @Test
    void checkFailsWithADiffAndTheUpdateCommandWhenTheApiChanged(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("fixture.api");
        String api = ApiDump.of(Widget.class);
        Files.writeString(file, "# header kept\n\n" + api.replace("  protected void grow()\n", ""), StandardCharsets.UTF_8);

        assertThatThrownBy(() -> ApiDump.check(Widget.class, file, false))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("@ public class org.sluice.testkit.apifixture.Widget")
                .hasMessageContaining("+   protected void grow()")
                .hasMessageContaining("-Dsluice.api.update=true");
    }

    @Test
    void checkIgnoresTheCommentHeaderAndPassesOnTheSameApi(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("fixture.api");
        Files.writeString(file, "# what this module promises\n# second line\n\n" + ApiDump.of(Widget.class),
                StandardCharsets.UTF_8);

        ApiDump.check(Widget.class, file, false);
    }

    @Test
    void updateRewritesTheFileKeepingItsHeader(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("fixture.api");
        Files.writeString(file, "# what this module promises\n\npublic class Gone {\n}\n", StandardCharsets.UTF_8);

        ApiDump.check(Widget.class, file, true);

        assertThat(Files.readString(file)).isEqualTo("# what this module promises\n\n" + ApiDump.of(Widget.class).strip() + "\n");
        ApiDump.check(Widget.class, file, false);
    }

    @Test
    void diffMarksRemovedAndAddedLinesUnderTheirClass() {
        String diff = ApiDump.diff(
                List.of("public class A {", "  public void a()", "  public void b()", "}"),
                List.of("public class A {", "  public void a()", "  public void c()", "}"));

        assertThat(diff).isEqualTo("@ public class A {\n+   public void c()\n-   public void b()\n");
    }
}
