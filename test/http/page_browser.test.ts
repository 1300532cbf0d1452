// test-scope: once
// (A real browser on a page that no runtime changes: CI runs this file on its recommended runtime only.)
// The page for people, in headless Chromium (the system's, driven by playwright-core): it loads and says the service
// is ready, tries an email and an address with a test key and reads the verdicts off the page, cleans a CSV of
// reserved addresses and saves its results, renders the API reference, in English and in French, at 320 px; every
// request it made went to this server, and none carried the key in its URL. A screenshot of each step is written
// under the test's temporary folder (printed), with the page's weight and its time to usable.
import { test } from "node:test";
import assert from "node:assert/strict";
import { accessSync, constants, readFileSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { parse } from "csv-parse/sync";
import type { Browser, Page, Request as BrowserRequest } from "playwright-core";
import type { AddressInput, AddressVerification } from "../../src/address/types.ts";
import type { AddressVerifier } from "../../src/services.ts";
import { createLogger } from "../../src/log.ts";
import { startTestServer } from "../helpers/server.ts";
import { tempDir } from "../helpers/temp_dir.ts";

/** CHROMIUM_PATH, else `chromium` or `chromium-browser` on PATH; undefined when there is none. */
function chromiumPath(): string | undefined {
  const candidates = [
    process.env.CHROMIUM_PATH,
    ...(process.env.PATH ?? "")
      .split(delimiter)
      .filter(Boolean)
      .flatMap((dir) => [join(dir, "chromium"), join(dir, "chromium-browser")]),
  ];
  for (const path of candidates) {
    if (!path) continue;
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // not this one
    }
  }
  return undefined;
}

const CHROMIUM = chromiumPath();
const SKIP = CHROMIUM === undefined ? "no Chromium: set CHROMIUM_PATH or install chromium (.ci/run does)" : false;

/**
 * An address engine standing in for the street index (live keys only; test keys never reach it): it serves two
 * départements and places every line it is given at the Hôtel de Ville, so that the page has coordinates to show.
 */
const placingEngine: AddressVerifier = {
  ready: true,
  index: { phase: "serving", answering: true, departements: ["69", "75"], importing: [], progress: null, missing: [] },
  async verify(input: AddressInput): Promise<AddressVerification> {
    const line = (input.line ?? "").trim();
    return {
      verdict: "deliverable",
      reasons: [],
      normalized: {
        house_number: null,
        house_number_suffix: null,
        street: line,
        postcode: "75004",
        city: "Paris",
        country: "FR",
        line,
        latitude: 48.856614,
        longitude: 2.352222,
      },
      duration_ms: 1,
    };
  },
};

/** Every request a page makes, with its bytes over the wire once it has finished. */
function recordRequests(page: Page) {
  const requests: BrowserRequest[] = [];
  page.on("request", (request) => requests.push(request));
  return {
    urls: () => requests.map((r) => r.url()),
    /** Bytes received (headers and encoded bodies) by the requests made so far from the `from`th on, and how many. */
    async weight(from = 0): Promise<{ bytes: number; count: number; next: number }> {
      let bytes = 0;
      for (const request of requests.slice(from)) {
        const sizes = await request.sizes();
        bytes += sizes.responseHeadersSize + sizes.responseBodySize;
      }
      return { bytes, count: requests.length - from, next: requests.length };
    },
  };
}

async function launch(): Promise<Browser> {
  const { chromium } = await import("playwright-core");
  // --no-sandbox: CI runs as root, where Chromium refuses its sandbox.
  return chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"], timeout: 20_000 });
}

test("the page works in a real browser: state, try, clean a list, the reference", { skip: SKIP }, async (t) => {
  const logLines: string[] = [];
  const log = createLogger({ level: "debug", write: (line) => logLines.push(line) });
  const server = await startTestServer(t, { address: placingEngine, log });
  const key = await server.key({ mode: "test" });
  const liveKey = await server.key({ mode: "live", plan: "unmetered" });
  const shots = tempDir("vrai-page-");
  t.diagnostic(`screenshots in ${shots.path}`);
  const browser = await launch();
  t.after(() => browser.close());
  const origin = new URL(server.url).origin;
  const context = await browser.newContext({
    locale: "en-GB",
    acceptDownloads: true,
    viewport: { width: 1280, height: 900 },
  });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  const recorded = recordRequests(page);
  // Every refusal by the page's Content-Security-Policy, as the page itself sees them (this init script is the
  // browser driver's, outside the page's policy).
  await page.addInitScript(
    "window.cspViolations = []; document.addEventListener('securitypolicyviolation', " +
      "(e) => window.cspViolations.push(e.effectiveDirective + ' ' + e.blockedURI));",
  );
  const cspViolations = async () => (await page.evaluate("window.cspViolations")) as string[];
  const shot = (name: string) => page.screenshot({ path: join(shots.path, `${name}.png`), fullPage: true });

  await t.test("it loads, is usable, and shows the service's state", async () => {
    const response = await page.goto(`${server.url}/`);
    assert.equal(response?.status(), 200);
    assert.match(response?.headers()["content-security-policy"] ?? "", /script-src 'self'(;|$)/);
    await page.waitForSelector("html[data-ready]");
    await page.waitForSelector("html[data-state]");
    const usableMs = Number(await page.getAttribute("html", "data-usable-ms"));
    assert.equal(await page.textContent("#state-status"), "Ready");
    assert.equal(await page.textContent("#state-version"), JSON.parse(readFileSync("package.json", "utf8")).version);
    assert.equal(await page.textContent("#state-departements"), "69, 75");
    assert.equal(await page.textContent("#state-egress"), "not run by this process");
    const { bytes, count } = await recorded.weight();
    t.diagnostic(`page_first_load bytes=${bytes} requests=${count} usable_ms=${usableMs}`);
    console.log(`page_first_load bytes=${bytes} requests=${count} usable_ms=${usableMs}`);
    assert.ok(usableMs > 0 && usableMs < 5000, `usable after ${usableMs} ms`);
    await shot("1-loaded");
  });

  await t.test("the keyboard reaches the key field; Try answers an email, verdict and checks in words", async () => {
    await page.keyboard.press("Tab");
    assert.equal(await page.evaluate("document.activeElement?.className"), "skip");
    await page.focus("#key");
    await page.keyboard.type(key);
    await page.fill("#try-email", "undeliverable@vrai.test");
    await page.keyboard.press("Enter");
    await page.waitForSelector('#try-result[data-state="answered"]');
    assert.equal(await page.getAttribute("#try-result .verdict", "data-verdict"), "undeliverable");
    assert.equal(await page.textContent("#try-result .verdict strong"), "Undeliverable");
    assert.match(
      (await page.textContent('#try-result [data-reason="mailbox_not_found"]')) ?? "",
      /mail server says this mailbox does not exist/,
    );
    const checks = await page.$$eval("#try-result .checks li", (items) =>
      items.map((li) => [li.getAttribute("data-check"), li.querySelector(".status")?.textContent]),
    );
    assert.deepEqual(checks, [
      ["syntax", "passed"],
      ["provider_rules", "passed"],
      ["typo", "passed"],
      ["disposable", "passed"],
      ["role", "passed"],
      ["mx", "passed"],
      ["smtp", "failed"],
      ["catch_all", "skipped"],
    ]);
    await shot("2-try-email");
  });

  await t.test("Try answers an address, as a line and as fields, with its normalized form and position", async () => {
    await page.check("#kind-address");
    assert.equal(await page.isVisible("#try-email"), false);
    await page.fill("#try-line", "1 Rue Corected, 00000 Testville");
    await page.click("#try-submit");
    await page.waitForSelector('#try-result .verdict[data-verdict="corrected"]');
    assert.equal(await page.textContent("#try-result .verdict strong"), "Corrected");
    assert.match((await page.textContent("#try-result .reasons")) ?? "", /street's name was corrected/);
    assert.equal(await page.textContent("#try-result .normalized"), "1 Rue Corrected, 00000 Testville");
    // Test answers have no coordinates.
    assert.equal(await page.textContent("#try-result .facts dd:last-child"), "no position known");
    await shot("3-try-address-line");
    await page.check("#shape-fields");
    await page.fill("#try-street", "Rue Deliverable");
    await page.fill("#try-postcode", "00000");
    await page.fill("#try-city", "Testville");
    await page.click("#try-submit");
    await page.waitForSelector('#try-result .verdict[data-verdict="incomplete"]');
    assert.match((await page.textContent("#try-result .reasons")) ?? "", /house number is missing/);
    await shot("4-try-address-fields");
  });

  await t.test("Try answers a signup: the combined verdict, then each signal", async () => {
    await page.check("#kind-signup");
    await page.fill("#try-email", "deliverable@vrai.test");
    await page.check("#shape-line");
    await page.fill("#try-line", "1 Rue Corected, 00000 Testville");
    await page.click("#try-submit");
    await page.waitForSelector("#try-result .signal");
    assert.equal(await page.textContent("#try-result > .verdict strong"), "Risky");
    assert.match(
      (await page.textContent('#try-result > .reasons [data-reason="address.street_corrected"]')) ?? "",
      /^Address: The street's name was corrected\./,
    );
    const signals = await page.$$eval("#try-result .signal", (sections) =>
      sections.map((section) => [
        section.querySelector("h3")?.textContent,
        section.querySelector(".verdict")?.getAttribute("data-verdict"),
      ]),
    );
    assert.deepEqual(signals, [
      ["Email", "deliverable"],
      ["Address", "corrected"],
    ]);
    await shot("5-try-signup");
  });

  await t.test("with a live key, an address's position is a link to its coordinates only", async () => {
    await page.fill("#key", liveKey);
    await page.check("#kind-address");
    await page.fill("#try-line", "Place de l'Hôtel de Ville, 75004 Paris");
    await page.click("#try-submit");
    await page.waitForSelector("#try-result a.position");
    assert.equal(await page.getAttribute("#try-result a.position", "href"), "geo:48.856614,2.352222");
    assert.equal(await page.textContent("#try-result a.position"), "48.856614, 2.352222");
    assert.equal(await page.textContent("#try-result .normalized"), "Place de l'Hôtel de Ville, 75004 Paris");
    await page.fill("#key", key);
  });

  await t.test("Clean a list: columns shown, job followed to the end, summary charted, results saved", async () => {
    const csv = join(shots.path, "customers.csv");
    writeFileSync(
      csv,
      "client;adresse;note\n" +
        "A;1 Rue Deliverable, 00000 Testville;x\n" +
        "B;1 Rue Corected, 00000 Testville;y\n" +
        "C;1 Rue Nonexistent, 00000 Testville;z\n" +
        "D;1 Rue Deliverable, 00000 Testville;w\n",
    );
    await page.check("#list-address");
    await page.setInputFiles("#clean-file", csv);
    await page.waitForSelector("#clean-columns table");
    const columns = await page.$$eval("#clean-columns tbody tr", (rows) =>
      rows.map((tr) => [tr.querySelector("th")?.textContent, tr.getAttribute("data-read")]),
    );
    assert.deepEqual(columns, [
      ["client", "false"],
      ["adresse", "true"],
      ["note", "false"],
    ]);
    await page.click("#clean-submit");
    await page.waitForSelector('#clean-job[data-status="completed"]');
    assert.equal(await page.getAttribute("#clean-progress", "value"), "4");
    assert.match((await page.textContent("#clean-status")) ?? "", /^4 of 4 done \(completed\)$/);
    const bars = await page.$$eval("#clean-summary li", (items) =>
      Object.fromEntries(items.map((li) => [li.getAttribute("data-verdict"), Number(li.getAttribute("data-count"))])),
    );
    assert.deepEqual(bars, { deliverable: 2, corrected: 1, nonexistent: 1 });
    await shot("6-clean-summary");
    const [download] = await Promise.all([page.waitForEvent("download"), page.click("#clean-download")]);
    assert.equal(download.suggestedFilename(), "customers-results.csv");
    const saved = join(shots.path, "customers-results.csv");
    await download.saveAs(saved);
    const rows: Array<Record<string, string>> = parse(readFileSync(saved), { bom: true, columns: true });
    assert.deepEqual(
      rows.map((row) => [row.client, row.note, row.verdict, row.normalized_line]),
      [
        ["A", "x", "deliverable", "1 Rue Deliverable, 00000 Testville"],
        ["B", "y", "corrected", "1 Rue Corrected, 00000 Testville"],
        ["C", "z", "nonexistent", ""],
        ["D", "w", "deliverable", "1 Rue Deliverable, 00000 Testville"],
      ],
    );
  });

  await t.test("Clean a list of emails: the email column read, the job followed, its results saved", async () => {
    const csv = join(shots.path, "subscribers.csv");
    writeFileSync(
      csv,
      "name,E-mail,since\n" +
        "Ann,deliverable@vrai.test,2019\n" +
        "Bob,undeliverable@vrai.test,2020\n" +
        "Cid,disposable@vrai.test,2021\n" +
        "Dee,deliverable@vrai.test,2022\n",
    );
    await page.check("#list-email");
    await page.setInputFiles("#clean-file", csv);
    await page
      .locator('#clean-columns tbody tr[data-read="true"] th', { hasText: /^E-mail$/ })
      .waitFor({ timeout: 10_000 });
    const columns = await page.$$eval("#clean-columns tbody tr", (rows) =>
      rows.map((tr) => [tr.querySelector("th")?.textContent, tr.getAttribute("data-read")]),
    );
    assert.deepEqual(columns, [
      ["name", "false"],
      ["E-mail", "true"],
      ["since", "false"],
    ]);
    await page.click("#clean-submit");
    // The job of the list before is "completed" too: wait for this one's count as well. An email job counts its
    // distinct addresses (the spec's bulk model: deduplicated at submission), so 3 of the 4 rows.
    await page
      .locator("#clean-status", { hasText: /^3 of 3 done \(completed\)$/ })
      .waitFor({ timeout: 20_000 })
      .catch(async (error) => {
        throw new Error(`the list's status reads "${await page.textContent("#clean-status")}"`, { cause: error });
      });
    await page.waitForSelector('#clean-job[data-status="completed"]');
    const bars = await page.$$eval("#clean-summary li", (items) =>
      Object.fromEntries(items.map((li) => [li.getAttribute("data-verdict"), Number(li.getAttribute("data-count"))])),
    );
    assert.deepEqual(bars, { deliverable: 1, undeliverable: 1, risky: 1 }, "the summary counts distinct addresses");
    await shot("6b-clean-emails");
    const [download] = await Promise.all([page.waitForEvent("download"), page.click("#clean-download")]);
    assert.equal(download.suggestedFilename(), "subscribers-results.csv");
    const saved = join(shots.path, "subscribers-results.csv");
    await download.saveAs(saved);
    const rows: Array<Record<string, string>> = parse(readFileSync(saved), { bom: true, columns: true });
    assert.deepEqual(
      rows.map((row) => [row.name, row.since, row.verdict]),
      [
        ["Ann", "2019", "deliverable"],
        ["Bob", "2020", "undeliverable"],
        ["Cid", "2021", "risky"],
      ],
      "an email list's results keep the first row of each address (README, bulk CSV)",
    );
  });

  await t.test("Read the API: the OpenAPI document rendered, with its examples", async () => {
    const before = (await recorded.weight()).next;
    const started = Date.now();
    await page.click("#reference-open");
    await page.waitForSelector('#reference-view[data-rendered="true"]', { timeout: 20_000 });
    await page.waitForSelector("#reference-view .opblock");
    const summaries = await page.$$eval("#reference-view .opblock-summary-description", (nodes) =>
      nodes.map((n) => n.textContent),
    );
    assert.ok(summaries.includes("Verify one email address"), summaries.join(" | "));
    await page.click("#reference-view #operations-email-verifyEmail .opblock-summary");
    await page.waitForSelector("#reference-view #operations-email-verifyEmail .opblock-body");
    // Swagger UI fills an operation's body in steps after the body appears: wait for the example, then read it.
    // (A locator, not waitForFunction: a predicate evaluated in the page is an eval, which the page's policy refuses.)
    await page
      .locator("#reference-view #operations-email-verifyEmail", { hasText: "deliverable@vrai.test" })
      .waitFor({ timeout: 10_000 })
      .catch(() => {}); // the assertion below says what was shown instead
    assert.match(
      (await page.textContent("#reference-view #operations-email-verifyEmail")) ?? "",
      /deliverable@vrai\.test/,
    );
    const renderedMs = Date.now() - started;
    // The page's key is handed to the reference's "Try it out" (its Authorize button shows it as set).
    await page.waitForSelector("#reference-view .btn.authorize.locked");
    const { bytes, count } = await recorded.weight(before);
    t.diagnostic(`page_reference bytes=${bytes} requests=${count} rendered_ms=${renderedMs}`);
    console.log(`page_reference bytes=${bytes} requests=${count} rendered_ms=${renderedMs}`);
    await shot("7-reference");
  });

  await t.test("every request went to this server, none with the key in its URL", async () => {
    const urls = recorded.urls();
    assert.ok(urls.length > 5);
    // data: (icons inside the reference's stylesheet) and blob: (the saved results) are read in the page itself.
    const outside = urls.filter((url) => !/^(data|blob):/.test(url) && new URL(url).origin !== origin);
    assert.deepEqual(outside, []);
    assert.deepEqual(
      // The secrets, after the vrai_test_ and vrai_live_ prefixes.
      urls.filter((url) => [key, liveKey].some((k) => url.includes(k.slice(10)))),
      [],
    );
    // Nor in the server's log, which saw every call the page made.
    assert.ok(logLines.some((line) => line.includes('"route":"/v1/jobs/:id/results.csv"')));
    assert.deepEqual(
      logLines.filter((line) => [key, liveKey].some((k) => line.includes(k.slice(10)))),
      [],
    );
    // Nothing the page or the reference renderer does is refused by the page's own policy.
    assert.deepEqual(await cspViolations(), []);
  });

  await t.test("the policy refuses an inline script put into the page", async () => {
    await page.evaluate(
      "{ const s = document.createElement('script'); s.textContent = 'window.inlineRan = true'; document.head.append(s); }",
    );
    await page.waitForFunction("window.cspViolations.length > 0");
    assert.equal(await page.evaluate("window.inlineRan"), undefined);
    assert.deepEqual(await cspViolations(), ["script-src-elem inline"]);
  });

  await t.test("in French, at 320 px, the page reads without scrolling sideways", async () => {
    const narrow = await browser.newContext({ locale: "fr-FR", viewport: { width: 320, height: 700 } });
    const french = await narrow.newPage();
    await french.goto(`${server.url}/`);
    await french.waitForSelector("html[data-ready]");
    assert.equal(await french.getAttribute("html", "lang"), "fr");
    assert.equal(await french.textContent("#try-title"), "Essayer");
    assert.equal(await french.textContent('label[for="key"]'), "Clé d'API");
    await french.fill("#key", key);
    await french.fill("#try-email", "disposable@vrai.test");
    await french.click("#try-submit");
    await french.waitForSelector('#try-result[data-state="answered"]');
    assert.equal(await french.textContent("#try-result .verdict strong"), "Risqué");
    assert.equal(await french.textContent('#try-result [data-check="mx"] .status'), "non exécuté");
    const width = Number(await french.evaluate("document.documentElement.scrollWidth"));
    assert.ok(width <= 320, `the page is ${width} px wide at 320`);
    await french.screenshot({ path: join(shots.path, "8-french-320px.png"), fullPage: true });
    await narrow.close();
  });
});
