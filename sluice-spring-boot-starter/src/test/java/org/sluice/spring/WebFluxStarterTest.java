package org.sluice.spring;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;

/** The starter in a WebFlux application (Reactor Netty) on a real port, memory scope. */
@SpringBootTest(classes = TestApp.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "spring.main.web-application-type=reactive")
class WebFluxStarterTest extends InMemoryContract {

    @Autowired
    ApplicationContext context;

    @Test
    void registersTheWebFilterOnly() {
        assertThat(context.getBeansOfType(SluiceWebFilter.class)).hasSize(1);
        assertThat(context.getBeansOfType(SluiceServletFilter.class)).isEmpty();
    }
}
