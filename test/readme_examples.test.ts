// test-scope: once
// (What the README promises does not change with the runtime: CI runs this file on its recommended runtime only.)
//
// The README's request examples are run against the real server, as a reader would paste them: every `curl` to
// localhost:8080 in a `sh` block, its `-d` body, and the answer written under it in a `# ...` comment (a JSON answer,
// whose members shown must be those of the real answer, `...` and `…` standing for what is left out; or a status line
// such as `# 202, Location: …`). So an example cannot drift from what the service answers.
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { test } from "node:test";
import { createKeyWithCli, ROOT, readyzOk, startServerProcess } from "./helpers/process.ts";

const PARIS = resolve(ROOT, "../shared/data/ban/adresses-75.csv.gz");
const skip = existsSync(PARIS) ? false : `real Paris BAN file absent at ${PARIS}: README examples not run`;

export interface ReadmeExample {
  /** The command as written (continuations joined), for messages. */
  command: string;
  method: "GET" | "POST";
  path: string;
  body: unknown;
  /** The JSON answer shown, with the left-out parts removed; undefined when none is shown. */
  answer: unknown;
  /** The status shown (`# 202, …`); undefined when none is shown. */
  status: number | undefined;
}

/** The answer comment as JSON: `,...` and `...` before a closing bracket go, `"…"` and `[…]` stand for anything. */
function shownJson(comment: string): unknown {
  const text = comment
    .replace(/,\s*(\.\.\.|…)\s*(?=[}\]])/g, "")
    .replace(/\[\s*(\.\.\.|…)\s*\]/g, '"…"')
    .replace(/\{\s*(\.\.\.|…)\s*\}/g, '"…"');
  return JSON.parse(text);
}

/** Every curl example of the README's `sh` blocks that calls the API, with what is shown under it. */
export function readmeExamples(readme: string): ReadmeExample[] {
  const examples: ReadmeExample[] = [];
  for (const block of readme.matchAll(/```sh\n([\s\S]*?)```/g)) {
    const lines = block[1].replace(/\\\n\s*/g, " ").split("\n");
    for (let i = 0; i < lines.length; i++) {
      const command = lines[i].trim();
      const url = command.match(/^curl .*?localhost:8080(\/v1\/[^\s'"]*)/);
      if (url === null || url[1].includes("<")) continue; // `<id>` examples need an earlier answer
      if (/ --data-binary @| -F | -T /.test(command)) continue; // a file of the reader's own
      const data = command.match(/ -d '([^']*)'/);
      const comment = lines[i + 1]?.trim().startsWith("# ") ? lines[i + 1].trim().slice(2) : undefined;
      examples.push({
        command,
        method: data ? "POST" : "GET",
        path: url[1],
        body: data ? JSON.parse(data[1]) : undefined,
        answer: comment?.startsWith("{") ? shownJson(comment) : undefined,
        status: comment?.match(/^(\d{3})\b/) ? Number(comment.slice(0, 3)) : undefined,
      });
    }
  }
  return examples;
}

/** Asserts that every member shown is in the answer with the same value; "…" matches anything. */
function assertShown(actual: unknown, shown: unknown, where: string): void {
  if (shown === "…") return;
  if (shown !== null && typeof shown === "object" && !Array.isArray(shown)) {
    assert.ok(actual !== null && typeof actual === "object", `${where}: an object`);
    for (const [name, value] of Object.entries(shown)) {
      assertShown((actual as Record<string, unknown>)[name], value, `${where}.${name}`);
    }
    return;
  }
  assert.deepEqual(actual, shown, where);
}

test("the README's examples parse: every API call it shows is found", () => {
  const examples = readmeExamples(readFileSync(join(ROOT, "README.md"), "utf8"));
  const shown = examples.map((e) => `${e.method} ${e.path}`);
  for (const call of ["POST /v1/email", "POST /v1/address", "POST /v1/signup", "POST /v1/email/bulk"]) {
    assert.ok(shown.includes(call), `${call} is among the README's examples`);
  }
  assert.ok(
    examples.some((e) => e.answer !== undefined && e.path === "/v1/address"),
    "an address answer is shown",
  );
});

test("the README's examples answer what the README shows, on the real server over the Paris file", {
  skip,
}, async (t) => {
  const state = mkdtempSync(join(tmpdir(), "vrai-readme-"));
  const env = {
    STATE_DIR: state,
    BAN_DEPARTEMENTS: "75",
    BAN_SOURCE: resolve(PARIS, ".."),
    BAN_INDEX_DIR: join(state, "ban"),
    // A DNS server that refuses at once: the examples' domains are answered as offline, without waiting.
    DNS_SERVERS: "127.0.0.1:9",
  };
  const server = await startServerProcess(t, env);
  const key = await createKeyWithCli(env, ["--account", "readme", "--plan", "unmetered"]);
  // Ready once the Paris file is indexed (10-20 s), as a reader would wait after `npm start`.
  assert.equal((await readyzOk(server.url, 120_000)).status, 200);

  for (const example of readmeExamples(readFileSync(join(ROOT, "README.md"), "utf8"))) {
    const response = await fetch(`${server.url}${example.path}`, {
      method: example.method,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: example.body === undefined ? undefined : JSON.stringify(example.body),
    });
    const text = await response.text();
    assert.equal(response.status, example.status ?? 200, `${example.command}\n→ ${response.status} ${text}`);
    if (example.answer !== undefined) assertShown(JSON.parse(text), example.answer, example.command);
  }
});
