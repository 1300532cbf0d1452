// The test runner runs two test files at once (test/runner/run.ts). That is safe only while no two files bind the same
// loopback address: SMTP peers listen on port 25 of an address of their own (127.0.N.x), as a real mail exchanger does,
// and a second file binding it meanwhile would fail with EADDRINUSE, now and then, depending on which files overlap.
// This test makes the rule visible when a file is written rather than as a rare flake: every loopback address other
// than 127.0.0.1 that a test file names belongs to that file alone, and an address built in a template
// (`127.0.13.${i}`) claims its whole /24.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const TEST_DIR = fileURLToPath(new URL("../", import.meta.url));

/** Files that name loopback addresses as data (CIDR matching, callback targets, this file), never binding them. */
const CLASSIFY_ONLY = new Set([
  "email/net/cidr.test.ts",
  "callbacks/callback_target.test.ts",
  "structure/loopback_addresses.test.ts",
]);

const LITERAL = /["'`](127\.\d+\.\d+\.\d+)["'`:]/g;
const TEMPLATE = /(127\.\d+\.\d+)\.\$\{/g;

/** The loopback addresses (and /24 prefixes, written "127.0.13.*") a file's code names, comments left out. */
export function loopbackClaims(source: string): Set<string> {
  const claims = new Set<string>();
  for (const line of source.split("\n")) {
    const code = line.trim();
    if (code.startsWith("//") || code.startsWith("*") || code.startsWith("/*")) continue;
    for (const [, address] of code.matchAll(LITERAL)) if (address !== "127.0.0.1") claims.add(address!);
    for (const [, prefix] of code.matchAll(TEMPLATE)) claims.add(`${prefix}.*`);
  }
  return claims;
}

function overlaps(a: string, b: string): boolean {
  if (a === b) return true;
  const within = (address: string, claim: string) => claim.endsWith(".*") && address.startsWith(claim.slice(0, -1));
  return within(a, b) || within(b, a);
}

test("a loopback address in a template claims its /24; comments claim nothing", () => {
  const claims = loopbackClaims(
    ['// "127.0.9.10"', 'const a = "127.0.3.10";', "const b = `127.0.13.$" + "{i}`;", 'bind("127.0.0.1")'].join("\n"),
  );
  assert.deepEqual([...claims].sort(), ["127.0.13.*", "127.0.3.10"]);
  assert.ok(overlaps("127.0.13.4", "127.0.13.*"));
  assert.ok(!overlaps("127.0.12.60", "127.0.12.6"));
});

test("no two test files name the same loopback address, so two can run at once", () => {
  const owners = new Map<string, string>();
  const clashes: string[] = [];
  const files = readdirSync(TEST_DIR, { recursive: true })
    .map(String)
    .filter((file) => file.endsWith(".ts") && !CLASSIFY_ONLY.has(file.split("\\").join("/")));
  for (const file of files) {
    for (const claim of loopbackClaims(readFileSync(join(TEST_DIR, file), "utf8"))) {
      for (const [other, owner] of owners) {
        if (owner !== file && overlaps(claim, other)) clashes.push(`${claim} in ${file} and ${other} in ${owner}`);
      }
      owners.set(claim, file);
    }
  }
  assert.ok(
    owners.size > 20,
    `the scan finds the peers' addresses (${owners.size} found under ${relative(".", TEST_DIR)})`,
  );
  assert.deepEqual(clashes, []);
});
