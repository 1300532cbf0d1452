// No import cycle in src/: a module graph that can be read bottom-up, where each module can be understood (and
// loaded) before the ones that use it. Type-only imports count too: a cycle of types is a cycle of concepts.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { test } from "node:test";

const SRC = new URL("../../src/", import.meta.url).pathname;
const IMPORT = /^\s*(?:import|export)\b[^;]*?\bfrom\s+["'](\.[^"']+)["']/gm;

function modules(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? modules(path) : path.endsWith(".ts") ? [path] : [];
  });
}

function cycles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const done = new Set<string>();
  const path: string[] = [];
  const visit = (node: string) => {
    const at = path.indexOf(node);
    if (at >= 0) return void found.push([...path.slice(at), node]);
    if (done.has(node)) return;
    path.push(node);
    for (const next of graph.get(node) ?? []) visit(next);
    path.pop();
    done.add(node);
  };
  for (const node of graph.keys()) visit(node);
  return found;
}

test("src/ has no import cycle", () => {
  const files = modules(SRC);
  const graph = new Map(
    files.map((file) => {
      const text = readFileSync(file, "utf8");
      const deps = [...text.matchAll(IMPORT)]
        .map((m) => resolve(dirname(file), m[1]!))
        .filter((d) => files.includes(d));
      return [file, deps];
    }),
  );
  assert.ok(graph.size > 100, "the walk found the modules");
  assert.deepEqual(
    cycles(graph).map((c) => c.map((f) => relative(SRC, f)).join(" -> ")),
    [],
  );
});
