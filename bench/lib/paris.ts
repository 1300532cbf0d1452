// The real Paris BAN file beside the project (../shared/data/ban). Benches that need it print one `skipped` line
// and exit when it is absent, so `npm run bench` still runs everywhere.
import { existsSync } from "node:fs";
import path from "node:path";
import { ROOT } from "../../test/helpers/process.ts";

export const PARIS_FILE = path.resolve(ROOT, "../shared/data/ban/adresses-75.csv.gz");

/** The Paris file's path; prints `<bench> skipped=1 reason=…` and exits when it is absent. */
export function parisFileOrSkip(bench: string): string {
  if (!existsSync(PARIS_FILE)) {
    console.log(`${bench} skipped=1 reason="Paris BAN file absent at ${PARIS_FILE}"`);
    process.exit(0);
  }
  return PARIS_FILE;
}
