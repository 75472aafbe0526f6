package org.sluice.edge.server;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.openqa.selenium.By;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * A headless Chromium driven through chromedriver (the distribution's {@code chromium} and
 * {@code chromium-driver} packages, which .ci/run installs), for the console's browser tests.
 * Where either is missing the calling test is skipped, saying why, rather than failing.
 */
final class ConsoleBrowser implements AutoCloseable {

    private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");

    private final WebDriver driver;

    private ConsoleBrowser(WebDriver driver) {
        this.driver = driver;
    }

    /** Starts a browser with a fresh profile under {@code dir}; skips {@code test} when there is none to start. */
    static ConsoleBrowser open(Path dir, String test) throws Exception {
        boolean present = Files.isExecutable(CHROMEDRIVER) && Files.isExecutable(CHROMIUM);
        if (!present) {
            System.err.println(test + " SKIPPED: " + CHROMEDRIVER + " or " + CHROMIUM
                    + " is missing (install the chromium and chromium-driver packages; .ci/run does)");
        }
        Assumptions.assumeTrue(present, "chromium and chromedriver are not installed: browser tests skipped");
        System.setProperty("webdriver.chrome.driver", CHROMEDRIVER.toString());
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--window-size=1280,900",
                "--user-data-dir=" + Files.createTempDirectory(dir, "chromium-profile"));
        options.setCapability("goog:loggingPrefs", Map.of("browser", "ALL"));
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(new File(CHROMEDRIVER.toString())).usingAnyFreePort().build();
        WebDriver driver = new ChromeDriver(service, options);
        driver.manage().timeouts().scriptTimeout(Duration.ofSeconds(10));
        return new ConsoleBrowser(driver);
    }

    WebDriver driver() {
        return driver;
    }

    /**
     * Waits up to 20 s. The console redraws its tables whenever it reads them again (after
     * every action and on its refresh), so an element found in one redraw can be gone when
     * its text is read: such a look is taken again, as one that found nothing is.
     */
    WebDriverWait waiting() {
        WebDriverWait wait = new WebDriverWait(driver, Duration.ofSeconds(20));
        wait.ignoring(StaleElementReferenceException.class);
        return wait;
    }

    WebElement byId(String id) {
        return driver.findElement(By.id(id));
    }

    /** Opens the console of the admin listener at {@code admin} and signs in with {@code token}. */
    void logIn(String admin, String token) {
        driver.get(admin + "/console");
        waiting().until(d -> byId("login").isDisplayed());
        byId("token").clear();
        byId("token").sendKeys(token);
        byId("token-save").click();
        waiting().until(d -> byId("app").isDisplayed());
    }

    /** Shows one page of the console at {@code admin}, already signed in. */
    void show(String admin, String page) {
        driver.get(admin + "/console/#" + page);
        waiting().until(d -> byId("page-" + page).isDisplayed());
    }

    @Override
    public void close() {
        driver.quit();
    }
}
