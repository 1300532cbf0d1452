// What a user who generates a client from the OpenAPI document gets: the document passes Redocly's recommended rules
// with no warning (with and without PUBLIC_URL), and the types of openapi-typescript used through openapi-fetch with
// its default options type-check under `tsc --strict`, with the job read's body typed as JSON (not `Job | string`).
// The compiled client then calls the server: a bulk job in test mode, read as JSON and as CSV.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { createConfig, lintFromString } from "@redocly/openapi-core";
import openapiTS, { astToString } from "openapi-typescript";
import { buildOpenApi } from "../../src/http/openapi.ts";
import { startTestServer } from "../helpers/server.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const TSC = join(ROOT, "node_modules/.bin/tsc");

/** Redocly's recommended rules over the document; every problem as "severity rule: message at pointer". */
async function lint(doc: unknown): Promise<string[]> {
  const config = await createConfig({ extends: ["recommended"] });
  const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: "openapi.json", config });
  return problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location?.[0]?.pointer}`);
}

// A client as openapi-fetch's README writes one: createClient<paths>() with no option but the base URL.
const CLIENT = `import createClient from "openapi-fetch";
import type { components, paths } from "./api";

type Job = components["schemas"]["Job"];

export async function submitAndRead(baseUrl: string, key: string, emails: string[]) {
  const client = createClient<paths>({ baseUrl, headers: { authorization: "Bearer " + key } });
  const submitted = await client.POST("/v1/email/bulk", { body: { emails } });
  if (submitted.data === undefined) throw new Error("not accepted: " + submitted.response.status);
  const id: string = submitted.data.job_id;
  const read = await client.GET("/v1/jobs/{id}", { params: { path: { id } } });
  if (read.data === undefined) throw new Error("not read: " + read.response.status);
  // The job read is JSON, never a string (an email Job, or an address list's job): its members are reachable
  // without narrowing a string away.
  const job = read.data;
  const status: Job["status"] = job.status;
  const verdicts: string[] = job.results.map((r) => r.verdict);
  const csv = await client.GET("/v1/jobs/{id}/results.csv", { params: { path: { id } }, parseAs: "text" });
  if (csv.data === undefined) throw new Error("no CSV: " + csv.response.status);
  const text: string = csv.data;
  return { status, verdicts, csv: text };
}
`;

const TSCONFIG = {
  compilerOptions: { target: "ES2022", module: "ESNext", moduleResolution: "Bundler", strict: true, noEmit: true },
  files: ["client.ts"],
};

test("the OpenAPI document lints clean and a generated openapi-fetch client type-checks and calls the server", async (t) => {
  const server = await startTestServer(t);
  const doc = await (await server.get("/v1/openapi.json")).json();

  await t.test("Redocly's recommended rules find nothing, with PUBLIC_URL unset and set", async () => {
    assert.deepEqual(
      doc.servers.map((s: { url: string }) => s.url),
      ["/"],
      "localhost is not offered as the server",
    );
    assert.deepEqual(await lint(doc), []);
    const deployed = buildOpenApi("https://verif.acme.fr");
    assert.deepEqual(
      deployed.servers.map((s) => s.url),
      ["https://verif.acme.fr"],
    );
    assert.deepEqual(await lint(deployed), []);
  });

  await t.test("openapi-fetch with default options types the job read as a Job and reads both forms", async () => {
    // Inside node_modules, so that the client resolves openapi-fetch as an installed package would.
    const dir = mkdtempSync(join(ROOT, "node_modules", ".vrai-typed-client-"));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, "api.ts"), astToString(await openapiTS(structuredClone(doc))));
    writeFileSync(join(dir, "client.ts"), CLIENT);
    writeFileSync(join(dir, "tsconfig.json"), JSON.stringify(TSCONFIG));
    const tsc = await promisify(execFile)(TSC, ["-p", join(dir, "tsconfig.json")], { cwd: dir }).then(
      () => "",
      (error: { stdout?: string; message: string }) => error.stdout || error.message,
    );
    assert.equal(tsc, "", "the client type-checks under --strict");

    const client = await import(pathToFileURL(join(dir, "client.ts")).href);
    const key = await server.key({ mode: "test" });
    const emails = ["deliverable@vrai.test", "undeliverable@vrai.test"];
    let read = await client.submitAndRead(server.url, key, emails);
    for (let i = 0; i < 50 && read.status !== "completed"; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      read = await client.submitAndRead(server.url, key, emails);
    }
    assert.equal(read.status, "completed");
    assert.deepEqual(read.verdicts, ["deliverable", "undeliverable"]);
    const [header, ...rows] = read.csv.trim().split(/\r?\n/);
    assert.match(header, /^email,verdict,reasons/);
    assert.deepEqual(
      rows.map((row: string) => row.split(",").slice(0, 2).join(",")),
      ["deliverable@vrai.test,deliverable", "undeliverable@vrai.test,undeliverable"],
    );
  });
});
