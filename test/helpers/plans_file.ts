// A plans file of a test's own (PLANS_FILE for the server it starts), so that limits such as batch_max can be small
// enough to reach in a test. Written in a fresh temp folder; the OS clears it.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Writes `{ plans }` to a new plans.json and returns its path. */
export function plansFile(plans: unknown): string {
  const file = join(mkdtempSync(join(tmpdir(), "vrai-plans-")), "plans.json");
  writeFileSync(file, JSON.stringify({ plans }));
  return file;
}
