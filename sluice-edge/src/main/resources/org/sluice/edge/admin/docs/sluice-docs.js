// Starts Swagger UI on the two descriptions this listener serves. Kept out of index.html
// so that the page's Content-Security-Policy can forbid inline scripts.
window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({
    urls: [
      { url: "/openapi/admin.yaml", name: "admin API (this listener)" },
      { url: "/openapi/ingest.yaml", name: "ingest API" }
    ],
    dom_id: "#swagger-ui",
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    layout: "StandaloneLayout"
  });
});
