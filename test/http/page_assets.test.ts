// The page's files as the server serves them (web/ and the reference renderer from node_modules), PAGE=off, and the
// page's words against the API's own vocabulary. What the page does in a browser: page_browser.test.ts.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { request as httpRequest } from "node:http";
import { loadConfig } from "../../src/config.ts";
import { ADDRESS_REASONS, ADDRESS_VERDICTS } from "../../src/address/vocabulary.ts";
import { CHECK_NAMES, CHECK_STATUSES, EMAIL_REASONS, VERDICTS } from "../../src/email/vocabulary.ts";
import { PAGE_CSP } from "../../src/http/routes/page_assets.ts";
import { ADDRESS_COLUMN_NAMES, addressColumns } from "../../src/jobs/address_csv.ts";
import { ADDRESS_COLUMN_NAMES as EMAIL_COLUMN_NAMES, parseCsvTable } from "../../src/jobs/csv_table.ts";
import { startTestServer } from "../helpers/server.ts";

/** The page's texts module: plain JavaScript served to browsers, imported here by URL (it has no types). */
interface Texts {
  TEXTS: Record<"en" | "fr", Record<string, unknown> & Record<`${string}s` | "reason_texts", Record<string, string>>>;
  pickLanguage(languages: string[]): "en" | "fr";
}
const { TEXTS, pickLanguage } = (await import(new URL("../../web/texts.js", import.meta.url).href)) as Texts;

/** The page's reading of a CSV's columns (plain JavaScript too). */
interface CsvColumns {
  EMAIL_NAMES: string[];
  ADDRESS_NAMES: Record<string, string[]>;
  columnsOf(text: string, kind: "email" | "address"): { columns: string[]; read: number[] };
}
const page = (await import(new URL("../../web/csv_columns.js", import.meta.url).href)) as CsvColumns;

const BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

/** A GET with exactly these headers (fetch would add Accept-Encoding and decode the body itself). */
function rawGet(url: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }>(
    (resolve, reject) => {
      const req = httpRequest(url, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      });
      req.on("error", reject);
      req.end();
    },
  );
}

test("the page's files are served with its policy, gzipped when asked, revalidated by ETag", async (t) => {
  const server = await startTestServer(t);
  const names = readdirSync("web");
  assert.ok(names.includes("page.js") && names.includes("page.css") && names.includes("index.html"));
  for (const name of names) {
    const response = await rawGet(`${server.url}/assets/${name}`);
    assert.equal(response.status, 200, name);
    assert.equal(response.headers["content-security-policy"], PAGE_CSP, name);
    assert.equal(response.headers["x-content-type-options"], "nosniff", name);
    assert.equal(response.headers["content-encoding"], undefined, name);
  }
  assert.equal(
    (await rawGet(`${server.url}/assets/page.js`)).headers["content-type"],
    "text/javascript; charset=utf-8",
  );
  assert.equal((await rawGet(`${server.url}/assets/page.css`)).headers["content-type"], "text/css; charset=utf-8");

  const plain = await rawGet(`${server.url}/assets/swagger-ui/swagger-ui-bundle.js`);
  const gzipped = await rawGet(`${server.url}/assets/swagger-ui/swagger-ui-bundle.js`, {
    "accept-encoding": "gzip, deflate, br",
  });
  assert.equal(gzipped.headers["content-encoding"], "gzip");
  assert.ok(gzipped.body.length < plain.body.length / 2, `${gzipped.body.length} of ${plain.body.length} bytes`);
  assert.deepEqual(gunzipSync(gzipped.body), plain.body);
  assert.equal(
    (await rawGet(`${server.url}/assets/page.css`, { "accept-encoding": "gzip;q=0" })).headers["content-encoding"],
    undefined,
  );

  const etag = String(plain.headers.etag);
  const again = await rawGet(`${server.url}/assets/swagger-ui/swagger-ui-bundle.js`, { "if-none-match": etag });
  assert.equal(again.status, 304);
  assert.equal(again.body.length, 0);

  // Only the page's own files: nothing else of the project or of node_modules.
  for (const path of [
    "/assets/..%2Fpackage.json",
    "/assets/%2e%2e%2fsrc%2fconfig.ts",
    "/assets/nothing.js",
    "/assets/swagger-ui/package.json",
    "/assets/swagger-ui/index.html",
    "/assets/swagger-ui/%",
  ]) {
    const response = await fetch(`${server.url}${path}`);
    assert.equal(response.status, 404, path);
    assert.equal(response.headers.get("content-type"), "application/problem+json", path);
  }
  // The API's answers carry none of the page's headers, and no CORS header, as before.
  const api = await fetch(`${server.url}/v1/openapi.json`, { headers: { origin: "https://elsewhere.example" } });
  assert.equal(api.headers.get("content-security-policy"), null);
  assert.equal(api.headers.get("access-control-allow-origin"), null);
});

test("PAGE=off: GET / is the JSON document for browsers too, and the page's files are gone", async (t) => {
  const server = await startTestServer(t, { env: { PAGE: "off" } });
  const home = await fetch(`${server.url}/`, { headers: { accept: BROWSER_ACCEPT } });
  assert.equal(home.status, 200);
  assert.equal(home.headers.get("content-type"), "application/json");
  assert.equal((await home.json()).openapi, `${server.url}/v1/openapi.json`);
  assert.equal((await fetch(`${server.url}/assets/page.js`)).status, 404);
  assert.equal((await fetch(`${server.url}/assets/swagger-ui/swagger-ui-bundle.js`)).status, 404);
});

test("PAGE takes on or off, and nothing else", () => {
  assert.equal(loadConfig({}).page, true);
  assert.equal(loadConfig({ PAGE: "off" }).page, false);
  assert.equal(loadConfig({ PAGE: "ON" }).page, true);
  assert.throws(() => loadConfig({ PAGE: "no" }), /PAGE must be on or off, got "no"/);
});

test("the page words every verdict, reason and check of the API, in English and in French, checks in order", () => {
  for (const language of ["en", "fr"] as const) {
    const texts = TEXTS[language];
    assert.deepEqual(Object.keys(texts), Object.keys(TEXTS.en), language);
    assert.deepEqual(Object.keys(texts.check_names), [...CHECK_NAMES], language);
    assert.deepEqual(Object.keys(texts.check_statuses).sort(), [...CHECK_STATUSES].sort(), language);
    assert.deepEqual(Object.keys(texts.reason_texts).sort(), [...EMAIL_REASONS, ...ADDRESS_REASONS].sort(), language);
    assert.deepEqual(
      Object.keys(texts.verdicts).sort(),
      [...new Set([...VERDICTS, ...ADDRESS_VERDICTS])].sort(),
      language,
    );
  }
  assert.equal(pickLanguage(["fr-CA", "en"]), "fr");
  assert.equal(pickLanguage(["de-DE", "en-GB"]), "en");
  assert.equal(pickLanguage(["de-DE"]), "en");
});

test("the page reads a CSV's columns as the server does: the same names, the same column picked", () => {
  assert.deepEqual(page.EMAIL_NAMES, [...EMAIL_COLUMN_NAMES]);
  assert.deepEqual(page.ADDRESS_NAMES, ADDRESS_COLUMN_NAMES);
  const emailFiles = [
    "name,Courriel\nJane,jane@example.com\n",
    "id;contact;note\n1;jane@example.com;x\n2;joe@example.org;y\n",
    '"E-mail","city"\n"jane@example.com","Paris"\n',
  ];
  for (const text of emailFiles) {
    const server = parseCsvTable(new TextEncoder().encode(text), { maxAddressLength: 320, isStorable: () => true });
    assert.deepEqual(page.columnsOf(text, "email").read, [server.emailColumn], text);
  }
  const addressHeaders = ["client;Adresse;note", "Numéro,Voie,Code postal,Ville", "id,street,cp,commune,pays"];
  for (const header of addressHeaders) {
    const columns = header.split(/[;,]/);
    const server = Object.values(addressColumns(columns)).sort();
    assert.deepEqual(page.columnsOf(`${header}\n`, "address").read.sort(), server, header);
  }
});
