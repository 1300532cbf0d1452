// Read the API: the OpenAPI document rendered by Swagger UI (swagger-ui-dist, served by this server from
// node_modules), loaded only when asked: it weighs more than the rest of the page. Its calls ("Try it out") go to
// this server; its validator badge, which would call an outside service, is turned off.
import { el } from "./dom.js";

function load(tag, attributes) {
  return new Promise((resolve, reject) => {
    const node = el(tag, attributes);
    node.addEventListener("load", resolve, { once: true });
    node.addEventListener("error", () => reject(new Error(`Cannot load ${attributes.src ?? attributes.href}`)), {
      once: true,
    });
    document.head.append(node);
  });
}

export function referenceView(t, root, key) {
  const button = root.querySelector("#reference-open");
  const view = root.querySelector("#reference-view");
  let opening = false;
  button.addEventListener("click", () => {
    if (opening) return;
    opening = true;
    (async () => {
      button.disabled = true;
      view.replaceChildren(t("reference_loading"));
      await Promise.all([
        load("link", { rel: "stylesheet", href: "/assets/swagger-ui/swagger-ui.css" }),
        load("script", { src: "/assets/swagger-ui/swagger-ui-bundle.js" }),
      ]);
      view.replaceChildren();
      const ui = window.SwaggerUIBundle({
        url: "/v1/openapi.json",
        domNode: view,
        deepLinking: false,
        validatorUrl: null,
        persistAuthorization: false,
        defaultModelsExpandDepth: 0,
        onComplete: () => {
          // The page's key, for "Try it out", kept in Swagger UI's memory like in the page's.
          if (key.get()) ui.preauthorizeApiKey("bearer", key.get());
          view.dataset.rendered = "true";
        },
      });
      button.hidden = true;
    })().catch((error) => {
      opening = false;
      button.disabled = false;
      view.replaceChildren(el("p", { class: "problem", role: "alert" }, String(error.message)));
    });
  });
}
