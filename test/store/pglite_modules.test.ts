// PGlite's WebAssembly is compiled once per process and shared by every embedded database the process opens: a
// worker compiling (and freeing) its own copy at each open is the churn V8's JIT page registry aborts on
// (src/store/pglite_modules.ts).
import { test } from "node:test";
import assert from "node:assert/strict";
import { pgliteModules } from "../../src/store/pglite_modules.ts";
import { openTestDatabase, type OpenTestDatabase } from "../helpers/database.ts";

const { WebAssembly } = globalThis as unknown as {
  WebAssembly: { Module: { new (bytes: Uint8Array): object; exports(module: object): { name: string }[] } };
};

test("pgliteModules() compiles PGlite's server and initdb once, and every later open gets the same modules", async (t) => {
  const first = await pgliteModules();
  assert.ok(first.pglite instanceof WebAssembly.Module);
  assert.ok(first.initdb instanceof WebAssembly.Module);
  assert.notEqual(first.pglite, first.initdb);
  // Two databases opened one after the other: the modules they were handed are still the ones compiled first.
  let open: OpenTestDatabase | undefined;
  t.after(() => open?.close()); // also when an assertion fails: an open database keeps the process alive
  for (let i = 0; i < 2; i++) {
    open = await openTestDatabase("embedded");
    const [row] = await open.sql`select 1 as one`;
    assert.equal(row.one, 1);
    await open.close();
    open = undefined;
  }
  const later = await pgliteModules();
  assert.equal(later.pglite, first.pglite);
  assert.equal(later.initdb, first.initdb);
});
