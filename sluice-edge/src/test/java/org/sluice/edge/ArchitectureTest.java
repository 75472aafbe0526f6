package org.sluice.edge;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;

/**
 * The layering {@code docs/architecture.md} states, checked on the compiled classes of
 * every module (this module's test classpath is the only one that sees them all).
 *
 * <p>Modules point one way: edge -> fleet -> core and edge -> shm -> core. Inside the
 * edge, packages must not form cycles, and the ingest path must not reach the admin
 * API, the server assembly or the command line. Nothing is frozen: every rule holds
 * today, and a new breach fails the build.
 *
 * <p>Delivery's layering, bottom up: {@code settings} (the config reading toolkit, JDK
 * only); {@code store}; {@code delivery.targets} (the sealed set of targets, JDK only);
 * {@code delivery} (the dispatcher, retry, breaker, pacing and the seam: {@code Transport},
 * {@code TransportFactory}, {@code TargetReader}); the transport rooms {@code delivery.http},
 * {@code delivery.kafka}, {@code delivery.nats} (each its reader and its transport; the
 * broker ones share {@code delivery.broker}); then {@code config}, which calls the readers,
 * and {@code server}, which builds a transport per kind. The top-level slices stay acyclic,
 * and so do {@code delivery} and each of its sub-packages taken as slices of their own:
 * {@code delivery} names no room.
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
            .should().onlyDependOnClassesThat().resideInAnyPackage("org.sluice.core..", "java..",
                    // @GuardedBy: a class-retention annotation read by Error Prone at compile
                    // time, in provided scope; nothing of it is needed at run time
                    "com.google.errorprone.annotations..")
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

    /**
     * The ingest path (the Netty handlers and worker stage in {@code http}, the limits in
     * {@code admission}, and what they use: {@code intake}, {@code store}, {@code verify},
     * {@code dedupe}, {@code stats}, {@code log}) never reaches the admin API, the server
     * assembly or the command line: {@code server} builds both listeners and is the only
     * place they meet.
     */
    @ArchTest
    static final ArchRule ingestPathNeverReachesAdminServerOrCli = noClasses()
            .that().resideInAnyPackage("org.sluice.edge.http..", "org.sluice.edge.admission..",
                    "org.sluice.edge.intake..", "org.sluice.edge.store..", "org.sluice.edge.verify..",
                    "org.sluice.edge.dedupe..", "org.sluice.edge.stats..", "org.sluice.edge.log..")
            .should().dependOnClassesThat().resideInAnyPackage(
                    "org.sluice.edge.admin..", "org.sluice.edge.server..", "org.sluice.edge.cli..")
            .as("the ingest path should not depend on org.sluice.edge.admin, .server or .cli");

    /** The request path's order: {@code http} above {@code admission}; neither looks back up. */
    @ArchTest
    static final ArchRule admissionNeverReachesHttp = noClasses()
            .that().resideInAPackage("org.sluice.edge.admission..")
            .should().dependOnClassesThat().resideInAnyPackage("org.sluice.edge.http..")
            .as("admission decides, http answers: org.sluice.edge.admission should not depend on org.sluice.edge.http");

    /**
     * The fleet's answers are read in {@code admission} and reach the request path as an
     * {@code Admission}: the HTTP room never sees the fleet module's types.
     */
    @ArchTest
    static final ArchRule httpNeverReadsTheFleet = noClasses()
            .that().resideInAPackage("org.sluice.edge.http..")
            .should().dependOnClassesThat().resideInAPackage("org.sluice.fleet..")
            .as("admission reads the fleet's answers: org.sluice.edge.http should not depend on org.sluice.fleet");

    /** The store is the bottom room: it uses sluice-core and nothing else of the edge. */
    @ArchTest
    static final ArchRule storeUsesNothingElseOfTheEdge = classes()
            .that().resideInAPackage("org.sluice.edge.store..")
            .should().onlyDependOnClassesThat().resideInAnyPackage("org.sluice.edge.store..", "org.sluice.core..",
                    "java..", "javax..", "org.rocksdb..", "org.apache.kafka..", "org.slf4j..", "com.fasterxml.jackson..",
                    "com.google.errorprone.annotations..")
            .as("org.sluice.edge.store should depend only on sluice-core, RocksDB, Kafka's client, Jackson, SLF4J and the JDK");

    /** RocksDB stays behind the store seam: only its implementation package sees the engine's types. */
    @ArchTest
    static final ArchRule onlyTheRocksStoreTouchesRocksDb = noClasses()
            .that().resideOutsideOfPackage("org.sluice.edge.store.rocks..")
            .should().dependOnClassesThat().resideInAPackage("org.rocksdb..")
            .as("nothing outside org.sluice.edge.store.rocks should depend on org.rocksdb");

    /** The seam names no implementation, so a second one (the Kafka log) plugs in beside the RocksDB store. */
    @ArchTest
    static final ArchRule theStoreSeamNamesNoImplementation = noClasses()
            .that().resideInAPackage("org.sluice.edge.store")
            .should().dependOnClassesThat().resideInAnyPackage("org.sluice.edge.store.rocks..",
                    "org.sluice.edge.store.kafka..", "org.rocksdb..", "org.apache.kafka..")
            .as("the store seam org.sluice.edge.store should name neither implementation nor engine");

    /** Only the Kafka log's implementation speaks Kafka among the store's packages. */
    @ArchTest
    static final ArchRule onlyTheKafkaStoreTouchesKafkaInTheStore = noClasses()
            .that().resideInAPackage("org.sluice.edge.store..")
            .and().resideOutsideOfPackage("org.sluice.edge.store.kafka..")
            .should().dependOnClassesThat().resideInAPackage("org.apache.kafka..")
            .as("in org.sluice.edge.store, only org.sluice.edge.store.kafka should depend on org.apache.kafka");

    /** Callers take the seam's interfaces; the server's assembly is the one place that opens the RocksDB store. */
    @ArchTest
    static final ArchRule onlyTheAssemblyNamesTheRocksStore = noClasses()
            .that().resideOutsideOfPackages("org.sluice.edge.store..", "org.sluice.edge.server..")
            .should().dependOnClassesThat().resideInAnyPackage("org.sluice.edge.store.rocks..", "org.sluice.edge.store.kafka..")
            .as("only org.sluice.edge.server should name a store implementation (org.sluice.edge.store.rocks, .kafka)");


    /**
     * The settings toolkit ({@code Section}, {@code Values}, ...) is the bottom room of the
     * configuration: {@code config} and the delivery rooms read their keys with it, and it
     * uses nothing of Sluice.
     */
    @ArchTest
    static final ArchRule settingsToolkitUsesOnlyTheJdk = classes()
            .that().resideInAPackage("org.sluice.edge.settings..")
            .should().onlyDependOnClassesThat().resideInAnyPackage("org.sluice.edge.settings..", "java..")
            .as("org.sluice.edge.settings should depend on the JDK only");

    /**
     * Routing's filters (model, reader, evaluation) stand on their own: of the edge they use
     * the settings toolkit only, besides the JDK, Jackson (a body read as JSON) and RE2/J
     * (linear-time {@code matches}), so that the config and the ingest path both use them.
     */
    @ArchTest
    static final ArchRule routeFiltersUseOnlySettings = classes()
            .that().resideInAPackage("org.sluice.edge.route..")
            .should().onlyDependOnClassesThat().resideInAnyPackage("org.sluice.edge.route..", "org.sluice.edge.settings..",
                    "java..", "com.fasterxml.jackson..", "com.google.re2j..")
            .as("org.sluice.edge.route should depend on the JDK, Jackson, RE2/J and org.sluice.edge.settings only");

    /**
     * Delivery sits on the store: the server, intake and admin call into it, never the other
     * way. Of the edge it uses the store, the settings toolkit (its readers' keys; never
     * {@code config}, which calls them), {@code verify} (the one header-name rule),
     * {@code netio} (the HTTP client's loops are of the listeners' transport) and
     * {@code route} (a destination's transformation, which stands on the JDK, Jackson and settings)
     * and {@code threads} (how its executors stop).
     */
    @ArchTest
    static final ArchRule deliveryUsesOnlyStoreSettingsAndVerify = classes()
            .that().resideInAPackage("org.sluice.edge.delivery..")
            .should().onlyDependOnClassesThat(resideInAPackage("org.sluice.edge..").negate()
                    .or(resideInAnyPackage("org.sluice.edge.delivery..", "org.sluice.edge.store..",
                            "org.sluice.edge.settings..", "org.sluice.edge.verify..", "org.sluice.edge.netio..",
                            "org.sluice.edge.route..", "org.sluice.edge.threads..")))
            .as("org.sluice.edge.delivery should use of the edge only org.sluice.edge.store, .settings, .verify,"
                    + " .netio, .route and .threads");

    /**
     * How the edge's own threads are made and stopped is a bottom room: the server, delivery
     * and the broker transports stop their executors through it, and it reads nothing of theirs.
     */
    @ArchTest
    static final ArchRule threadsUseOnlyTheJdk = classes()
            .that().resideInAPackage("org.sluice.edge.threads..")
            .should().onlyDependOnClassesThat().resideInAnyPackage("org.sluice.edge.threads..", "java..")
            .as("org.sluice.edge.threads should depend on the JDK only");

    /**
     * The choice of Netty transport is a bottom room: the listeners ({@code server}), the
     * HTTP delivery client and {@code config} read it, and it reads nothing of theirs.
     */
    @ArchTest
    static final ArchRule netioUsesOnlyNettyAndTheJdk = classes()
            .that().resideInAPackage("org.sluice.edge.netio..")
            .should().onlyDependOnClassesThat().resideInAnyPackage("org.sluice.edge.netio..", "io.netty..", "java..")
            .as("org.sluice.edge.netio should depend on Netty and the JDK only");

    // ------------------------------------------------------------------ the delivery rooms

    /**
     * Each transport is a room of its own ({@code delivery.http}, {@code delivery.kafka},
     * {@code delivery.nats}: its target, its reader, its transport); none uses another.
     */
    @ArchTest
    static final ArchRule transportRoomsAreIndependent = slices()
            .matching("org.sluice.edge.delivery.(http|kafka|nats)..").should().notDependOnEachOther()
            .as("the transport rooms of org.sluice.edge.delivery should not depend on each other");

    /**
     * {@code delivery} and each package below it ({@code target}, {@code broker}, each
     * transport room) as a slice of its own: no cycle among them. The edge-wide rule above
     * sees them as one slice, so it would not catch the dispatcher's package and a room
     * naming each other.
     */
    @ArchTest
    static final ArchRule deliveryAndItsRoomsFormNoCycle = slices().assignedFrom(new DeliveryRooms())
            .should().beFreeOfCycles()
            .as("org.sluice.edge.delivery and each of its sub-packages should be free of cycles");

    /**
     * The dispatcher's package works on the seam only ({@code Transport},
     * {@code TransportFactory}, {@code TargetReader}, the sealed {@code Target}); the server's
     * assembly builds each transport, so adding a transport touches nothing here.
     */
    @ArchTest
    static final ArchRule deliveryNamesNoTransportRoom = noClasses()
            .that().resideInAPackage("org.sluice.edge.delivery")
            .should().dependOnClassesThat().resideInAnyPackage("org.sluice.edge.delivery.http..",
                    "org.sluice.edge.delivery.kafka..", "org.sluice.edge.delivery.nats..",
                    "org.sluice.edge.delivery.broker..")
            .as("org.sluice.edge.delivery should not depend on the transport rooms (.http, .kafka, .nats, .broker)");

    /** The sealed set of targets is the delivery rooms' bottom: plain records on the JDK. */
    @ArchTest
    static final ArchRule targetsUseOnlyTheJdk = classes()
            .that().resideInAPackage("org.sluice.edge.delivery.targets..")
            .should().onlyDependOnClassesThat().resideInAnyPackage("org.sluice.edge.delivery.targets..", "java..")
            .as("org.sluice.edge.delivery.targets should depend on the JDK only");

    /** What the broker transports share knows neither broker, nor any transport room. */
    @ArchTest
    static final ArchRule brokerToolkitKnowsNoTransport = noClasses()
            .that().resideInAPackage("org.sluice.edge.delivery.broker..")
            .should().dependOnClassesThat().resideInAnyPackage("org.sluice.edge.delivery.http..",
                    "org.sluice.edge.delivery.kafka..", "org.sluice.edge.delivery.nats..", "org.apache.kafka..",
                    "io.nats..")
            .as("org.sluice.edge.delivery.broker should know neither Kafka nor NATS");

    /** Only the broker rooms use the broker toolkit. */
    @ArchTest
    static final ArchRule onlyBrokerRoomsUseTheBrokerToolkit = classes()
            .that().resideInAPackage("org.sluice.edge.delivery.broker..")
            .should().onlyBeAccessed().byClassesThat().resideInAnyPackage("org.sluice.edge.delivery.broker..",
                    "org.sluice.edge.delivery.kafka..", "org.sluice.edge.delivery.nats..")
            .as("org.sluice.edge.delivery.broker should be used by the Kafka and NATS rooms only");

    /** {@code org.sluice.edge.delivery} is slice {@code delivery}; each package below it a slice by its first name there. */
    private static final class DeliveryRooms implements SliceAssignment {

        private static final String ROOT = "org.sluice.edge.delivery";

        @Override
        public SliceIdentifier getIdentifierOf(JavaClass c) {
            String p = c.getPackageName();
            if (p.equals(ROOT)) {
                return SliceIdentifier.of("delivery");
            }
            if (!p.startsWith(ROOT + ".")) {
                return SliceIdentifier.ignore();
            }
            String rest = p.substring(ROOT.length() + 1);
            int dot = rest.indexOf('.');
            return SliceIdentifier.of("delivery." + (dot < 0 ? rest : rest.substring(0, dot)));
        }

        @Override
        public String getDescription() {
            return "org.sluice.edge.delivery and each package below it";
        }
    }
}
