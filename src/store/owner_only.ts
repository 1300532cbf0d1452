// Everything under STATE_DIR belongs to its owner alone (docs/decisions.md "Storage"): the embedded database's files,
// its WAL among them, hold every submitted email address. PGlite writes the files of a new database 0666 whatever the
// umask, so the umask alone is not enough: the process narrows its umask (whatever it creates later is owner-only), and
// the tree is made owner-only at start, once before the database opens (what was there already is named in a warning)
// and once after (the database's own files, silently).
import { chmodSync, lstatSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "../log.ts";

/** Permission bits of the group and of others. */
const GROUP_OTHER = 0o077;
/** How many entries a warning names; the count says how many there were. */
const NAMED_IN_WARNING = 20;

/** Narrows the process's umask (process-wide: worker threads included) so that what it creates is owner-only. */
export function restrictUmask(): void {
  const previous = process.umask(GROUP_OTHER);
  if ((previous | GROUP_OTHER) !== GROUP_OTHER) process.umask(previous | GROUP_OTHER);
}

export interface OwnerOnlyEntry {
  /** Relative to the directory walked ("." for the directory itself). */
  path: string;
  /** The permission bits it had, e.g. "0644". */
  mode: string;
}

function isGone(error: unknown): boolean {
  return (error as NodeJS.ErrnoException).code === "ENOENT";
}

/**
 * Takes the group's and others' bits off `dir` and everything under it (symbolic links are neither followed nor
 * changed), and returns the entries it changed. Entries removed meanwhile (a running database's temporary files) are
 * skipped.
 */
export function makeOwnerOnly(dir: string): OwnerOnlyEntry[] {
  const changed: OwnerOnlyEntry[] = [];
  const visit = (path: string, relative: string) => {
    let stats: ReturnType<typeof lstatSync>;
    try {
      stats = lstatSync(path);
    } catch (error) {
      if (isGone(error)) return;
      throw error;
    }
    if (stats.isSymbolicLink()) return;
    const bits = stats.mode & 0o7777;
    if ((bits & GROUP_OTHER) !== 0) {
      try {
        chmodSync(path, bits & ~GROUP_OTHER);
        changed.push({ path: relative, mode: `0${(bits & 0o777).toString(8)}` });
      } catch (error) {
        if (!isGone(error)) throw error;
      }
    }
    if (!stats.isDirectory()) return;
    let names: string[];
    try {
      names = readdirSync(path);
    } catch (error) {
      if (isGone(error)) return;
      throw error;
    }
    for (const name of names) visit(join(path, name), relative === "." ? name : join(relative, name));
  };
  visit(dir, ".");
  return changed;
}

/**
 * Checks a STATE_DIR before its database opens: creates it owner-only when missing, and makes what is there
 * owner-only, with one warning naming what group or others could reach. Returns the entries it changed.
 */
export function secureStateDir(dir: string, options: { log: Logger }): OwnerOnlyEntry[] {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const changed = makeOwnerOnly(dir);
  if (changed.length > 0) {
    options.log.warn("state directory entries were open to other users: made owner-only", {
      dir,
      count: changed.length,
      entries: changed.slice(0, NAMED_IN_WARNING).map((e) => `${e.path} (${e.mode})`),
    });
  }
  return changed;
}
