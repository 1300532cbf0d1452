// The commune reference an earlier start left in data/ban (reference/compile.ts, cachedReference), copied into a
// test's own index directory so that its server does not compile it again (about 800 ms). Only finished files: a
// test process that is still writing the cache leaves reference-….bin.<pid>.tmp there until it renames it.
import { copyFileSync, existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./process.ts";

export function copyCachedReference(indexDir: string): void {
  const cached = join(ROOT, "data/ban");
  if (!existsSync(cached)) return; // run alone on a fresh clone: the server compiles it
  for (const f of readdirSync(cached).filter((f) => f.startsWith("reference-") && f.endsWith(".bin"))) {
    copyFileSync(join(cached, f), join(indexDir, f));
  }
}
