// A fresh directory under the system's temporary directory, for a STATE_DIR, a plans file or an index.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface TempDir {
  path: string;
  remove(): void;
}

/** Creates `<tmpdir>/<prefix>XXXXXX`; `remove()` deletes it and everything in it. */
export function tempDir(prefix: string): TempDir {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}
