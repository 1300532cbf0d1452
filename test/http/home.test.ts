import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { PROBLEM_TYPES } from "../../src/http/errors.ts";
import { prefersHtml } from "../../src/http/routes/home.ts";
import { PAGE_CSP } from "../../src/http/routes/page_assets.ts";
import { startTestServer } from "../helpers/server.ts";

test("prefersHtml() is true only when text/html outranks application/json", () => {
  const cases: Array<[string | null, boolean]> = [
    [null, false],
    ["*/*", false],
    ["application/json", false],
    ["text/html", true],
    ["text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", true],
    ["application/json, text/html;q=0.5", false],
    ["text/*;q=0.9, application/json;q=0.5", true],
    ["text/html;q=0, */*", false],
  ];
  for (const [accept, expected] of cases) assert.equal(prefersHtml(accept), expected, String(accept));
});

test("GET / points at the OpenAPI description, the endpoints and the error pages, without a key", async (t) => {
  const server = await startTestServer(t);

  await t.test("a JSON client gets a small JSON document", async () => {
    const response = await fetch(`${server.url}/`);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("content-type"), "application/json");
    const home = await response.json();
    assert.equal(home.openapi, `${server.url}/v1/openapi.json`);
    assert.equal(home.version, JSON.parse(readFileSync("package.json", "utf8")).version);
    assert.deepEqual(home.departements, ["75"]);
    assert.deepEqual(
      home.endpoints.map((e: { method: string; path: string }) => `${e.method} ${e.path}`),
      [
        "POST /v1/email",
        "POST /v1/address",
        "POST /v1/signup",
        "POST /v1/email/bulk",
        "POST /v1/address/bulk",
        "GET /v1/jobs/{id}",
        "GET /v1/jobs/{id}/results.csv",
        "GET /v1/account/callback-secret",
        "POST /v1/account/callback-secret",
      ],
    );
    // The operators' routes are named apart from the API's endpoints.
    assert.deepEqual(home.health, {
      live: `${server.url}/healthz`,
      ready: `${server.url}/readyz`,
      metrics: `${server.url}/metrics`,
    });
    assert.deepEqual(
      home.errors.map((e: { url: string }) => e.url),
      Object.keys(PROBLEM_TYPES).map((slug) => `${server.url}/errors/${slug}`),
    );
    // Every link it gives answers.
    for (const url of [home.openapi, ...home.errors.map((e: { url: string }) => e.url)]) {
      assert.equal((await fetch(url)).status, 200, url);
    }
  });

  await t.test("a browser gets the page, under a policy that allows its own origin only", async () => {
    const response = await fetch(`${server.url}/`, {
      headers: { accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8" },
    });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("content-type"), "text/html; charset=utf-8");
    assert.equal(response.headers.get("vary"), "accept, accept-encoding");
    assert.equal(response.headers.get("content-security-policy"), PAGE_CSP);
    assert.equal(response.headers.get("access-control-allow-origin"), null);
    const html = await response.text();
    assert.ok(html.includes('<script type="module" src="/assets/page.js"></script>'));
    assert.ok(html.includes('<a href="/v1/openapi.json"'));
    // No inline script: every <script> loads a file.
    assert.deepEqual(html.match(/<script(?![^>]*\bsrc=)[^>]*>/g), null);
  });

  await t.test("an error page links back to it", async () => {
    const html = await (await fetch(`${server.url}/errors/invalid-request`)).text();
    assert.ok(html.includes('<a href="/">'));
  });
});
