package org.sluice.edge;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.library.freeze.FreezingArchRule;

/**
 * The layering {@code docs/architecture.md} states, checked on the compiled classes of
 * every module (this module's test classpath is the only one that sees them all).
 *
 * <p>Modules point one way: edge -> fleet -> core and edge -> shm -> core. Inside the
 * edge, packages must not form cycles, and the ingest path must not reach the admin
 * API. Where the code already breaks a rule, the breaches are frozen
 * ({@link FreezingArchRule}, store in {@code src/test/resources/archunit/frozen},
 * checked in): those may stay or go (a fixed one leaves the store on the next run), but
 * any new one fails the build.
 */
@AnalyzeClasses(packages = "org.sluice", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {

    // ------------------------------------------------------------------ modules

    @ArchTest
    static final ArchRule modulesPointOneWay = layeredArchitecture()
            .consideringOnlyDependenciesInLayers()
            .layer("core").definedBy("org.sluice.core..")
            .layer("shm").definedBy("org.sluice.shm..")
            .layer("fleet").definedBy("org.sluice.fleet..")
            .layer("edge").definedBy("org.sluice.edge..")
            .whereLayer("edge").mayNotBeAccessedByAnyLayer()
            .whereLayer("shm").mayOnlyBeAccessedByLayers("edge")
            .whereLayer("fleet").mayOnlyBeAccessedByLayers("edge")
            .whereLayer("core").mayOnlyBeAccessedByLayers("shm", "fleet", "edge")
            .because("edge -> fleet -> core and edge -> shm -> core; nothing points back");

    @ArchTest
    static final ArchRule coreDependsOnNothingButTheJdk = classes()
            .that().resideInAPackage("org.sluice.core..")
            .should().onlyDependOnClassesThat().resideInAnyPackage("org.sluice.core..", "java..")
            .because("sluice-core is limit arithmetic and in-memory tables: no I/O, no dependencies");

    @ArchTest
    static final ArchRule shmUsesOnlyCore = noClasses()
            .that().resideInAPackage("org.sluice.shm..")
            .should().dependOnClassesThat().resideInAnyPackage(
                    "org.sluice.fleet..", "org.sluice.edge..", "org.sluice.testkit..", "org.sluice.bench..")
            .because("sluice-shm depends on sluice-core only");

    @ArchTest
    static final ArchRule fleetUsesOnlyCore = noClasses()
            .that().resideInAPackage("org.sluice.fleet..")
            .should().dependOnClassesThat().resideInAnyPackage(
                    "org.sluice.shm..", "org.sluice.edge..", "org.sluice.testkit..", "org.sluice.bench..")
            .because("sluice-fleet depends on sluice-core only");

    @ArchTest
    static final ArchRule librariesNeverReachTheEdge = noClasses()
            .that().resideInAnyPackage("org.sluice.core..", "org.sluice.shm..", "org.sluice.fleet..")
            .should().dependOnClassesThat().resideInAPackage("org.sluice.edge..")
            .because("the libraries know nothing of HTTP, config or storage");

    // ------------------------------------------------------------------ inside the edge

    /** The edge's packages had no cycle when this rule was written: none is frozen, any new one fails. */
    @ArchTest
    static final ArchRule edgePackagesFormNoCycle =
            slices().matching("org.sluice.edge.(*)..").should().beFreeOfCycles()
                    .as("packages of sluice-edge should be free of cycles");

    /** The two classes of {@code http} that assemble the servers and start the admin listener, with their inner classes. */
    private static final DescribedPredicate<JavaClass> SERVER_ASSEMBLY = DescribedPredicate.describe(
            "the server assembly (EdgeServer, AdminServer)",
            c -> isOrIsInside(c, "org.sluice.edge.http.EdgeServer") || isOrIsInside(c, "org.sluice.edge.http.AdminServer"));

    private static boolean isOrIsInside(JavaClass c, String name) {
        return c.getName().equals(name) || c.getName().startsWith(name + "$");
    }

    /**
     * The ingest path (everything in {@code http} but the server assembly) never reaches
     * the admin API. Frozen: {@code NodeLimits.tables} builds the admin API's
     * {@code AdmissionState.Table} rows itself.
     */
    @ArchTest
    static final ArchRule ingestPathNeverReachesAdmin = FreezingArchRule.freeze(
            noClasses()
                    .that().resideInAPackage("org.sluice.edge.http..")
                    .and(DescribedPredicate.not(SERVER_ASSEMBLY))
                    .should().dependOnClassesThat().resideInAPackage("org.sluice.edge.admin..")
                    .as("the ingest path (org.sluice.edge.http but EdgeServer and AdminServer) should not depend on org.sluice.edge.admin"));
}
