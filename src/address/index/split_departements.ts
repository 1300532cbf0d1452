// Routes the rows of one BAN file to one IndexBuilder per département (from code_insee) and writes each index as
// soon as it is complete. BAN exports are ordered by INSEE code, so départements come in runs: the end of a run
// finishes its builder, and only one builder is in memory at a time (the whole-country file has 26 million rows;
// all its builders at once would take gigabytes). A file that is not sorted shows itself when a finished
// département comes back: that pass fails with UnsortedSourceError and the caller reads the file again `grouped`,
// keeping one builder per département until the end (import.ts).
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { IndexBuilder, type BanRow } from "./builder.ts";
import { departementOfInsee, isInseeCode } from "./departement.ts";
import { indexFileName } from "./format.ts";

/** A département's rows come back after another département's: the file is not sorted by département. */
export class UnsortedSourceError extends Error {
  readonly departement: string;
  constructor(departement: string) {
    super(`Cannot import BAN file in one pass: département ${departement} comes back after another département`);
    this.name = "UnsortedSourceError";
    this.departement = departement;
  }
}

export interface SplitProgress {
  /** Département of the last row read ("" before the first). */
  departement: string;
  /** Rows read so far, all départements together. */
  rows: number;
  /** Builders in memory right now (1 on a sorted file). */
  builders: number;
}

export interface SplitOptions {
  indexDir: string;
  /** Keep every département's builder until the end: for a file not sorted by département. */
  grouped?: boolean;
  /** Départements to write even when no row names them: an empty index, so that the next start does not try to
   *  import them again. */
  expected?: readonly string[];
  onProgress?: (progress: SplitProgress) => void;
  signal?: AbortSignal;
}

export interface SplitIndex {
  departement: string;
  /** Final path of the index (`<indexDir>/ban-XX.idx`). */
  path: string;
  /** Where it was written; the caller renames it to `path` once the whole file has been read. */
  tmpPath: string;
  rows: number;
  bytes: number;
  /** From the département's first row to its index written. */
  ms: number;
}

interface OpenBuilder {
  builder: IndexBuilder;
  started: number;
}

/** Reads `rows` once and writes one temporary index file per département; on any failure, removes them all. */
export async function splitByDepartement(rows: AsyncIterable<BanRow>, options: SplitOptions): Promise<SplitIndex[]> {
  const { indexDir, grouped = false, expected = [], onProgress, signal } = options;
  const open = new Map<string, OpenBuilder>();
  const written: SplitIndex[] = [];
  const done = new Set<string>();
  let current = "";
  let total = 0;
  const report = () => onProgress?.({ departement: current, rows: total, builders: open.size });
  const builderOf = (departement: string): OpenBuilder => {
    let entry = open.get(departement);
    if (entry === undefined) {
      entry = { builder: new IndexBuilder(departement), started: performance.now() };
      open.set(departement, entry);
    }
    return entry;
  };
  const write = (departement: string) => {
    const { builder, started } = open.get(departement)!;
    // Dropped from the map before finish(): its serialised form and the builder are the only big things alive.
    open.delete(departement);
    done.add(departement);
    const data = builder.finish();
    mkdirSync(indexDir, { recursive: true });
    const path = join(indexDir, indexFileName(departement));
    const tmpPath = `${path}.${process.pid}.tmp`;
    writeFileSync(tmpPath, data);
    written.push({
      departement,
      path,
      tmpPath,
      rows: builder.rows,
      bytes: data.length,
      ms: Math.round(performance.now() - started),
    });
  };
  try {
    for await (const row of rows) {
      // A row without a usable INSEE code belongs to no département index (none in BAN exports so far).
      if (!isInseeCode(row.codeInsee)) continue;
      const departement = departementOfInsee(row.codeInsee).toUpperCase();
      if (departement !== current) {
        if (!grouped && current !== "") write(current);
        if (done.has(departement)) throw new UnsortedSourceError(departement);
        current = departement;
      }
      builderOf(departement).builder.add(row);
      total++;
      if ((total & 0x3fff) === 0) {
        signal?.throwIfAborted();
        report();
      }
    }
    report();
    for (const departement of [...open.keys()].sort()) write(departement);
    for (const d of expected) {
      const departement = d.toUpperCase();
      if (done.has(departement)) continue;
      builderOf(departement);
      write(departement);
    }
    return written;
  } catch (err) {
    for (const w of written) rmSync(w.tmpPath, { force: true });
    throw err;
  }
}
