// Imports one BAN département file into data/ban/ (or any index directory): a local `adresses-XX.csv.gz`, or a
// département code looked up in BAN_SOURCE, a directory or a URL base (the official download by default).
import { mkdirSync, renameSync, statSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { Readable } from "node:stream";
import { Agent, interceptors, request } from "undici";
import { readBanCsv } from "./ban_csv.ts";
import { IndexBuilder } from "./builder.ts";
import { indexFileName } from "./format.ts";

export interface ImportProgress {
  departement: string;
  /** Compressed bytes read so far and the total when known (0 when not). */
  bytes: number;
  totalBytes: number;
  rows: number;
}

export interface ImportOptions {
  /** BAN_SOURCE: a directory of `adresses-XX.csv.gz` files or a URL base; used when the source is a code. */
  banSource: string;
  indexDir: string;
  onProgress?: (progress: ImportProgress) => void;
  signal?: AbortSignal;
}

export interface ImportResult {
  departement: string;
  path: string;
  rows: number;
  bytes: number;
  ms: number;
}

const CODE = /^(?:\d{2}|2[AB]|97\d)$/i;

/** True when a source argument is a département code ("75", "2A", "971") rather than a path. */
export function isDepartementCode(source: string): boolean {
  return CODE.test(source);
}

/** Département of a BAN file name ("adresses-75.csv.gz" → "75"). */
export function departementOfFile(path: string): string {
  const m = /adresses-([0-9AB]{2,3})\.csv\.gz$/i.exec(basename(path));
  if (!m) throw new TypeError(`Cannot import BAN file: cannot tell the département from the name "${basename(path)}"`);
  return m[1]!.toUpperCase();
}

async function open(source: string, options: ImportOptions): Promise<{ stream: Readable | string; departement: string; total: number }> {
  if (!isDepartementCode(source)) {
    return { stream: source, departement: departementOfFile(source), total: statSync(source).size };
  }
  const departement = source.toUpperCase();
  const file = `adresses-${departement}.csv.gz`;
  if (/^https?:\/\//i.test(options.banSource)) {
    const url = `${options.banSource.replace(/\/+$/, "")}/${file}`;
    // The official site redirects "latest" to a dated directory.
    const dispatcher = new Agent().compose(interceptors.redirect({ maxRedirections: 5 }));
    const res = await request(url, { signal: options.signal, dispatcher });
    if (res.statusCode !== 200) {
      await res.body.dump();
      throw new Error(`Cannot download BAN file: ${url} answered ${res.statusCode}`);
    }
    const total = Number(res.headers["content-length"] ?? 0);
    return { stream: res.body as unknown as Readable, departement, total: Number.isFinite(total) ? total : 0 };
  }
  const path = join(options.banSource, file);
  return { stream: path, departement, total: statSync(path).size };
}

/** Streams one source into `<indexDir>/ban-XX.idx` (written under a temporary name, then renamed). */
export async function importBan(source: string, options: ImportOptions): Promise<ImportResult> {
  const started = performance.now();
  const { stream, departement, total } = await open(source, options);
  const builder = new IndexBuilder(departement);
  let bytes = 0;
  const report = () => options.onProgress?.({ departement, bytes, totalBytes: total, rows: builder.rows });
  for await (const row of readBanCsv(stream, { onBytes: (n) => { bytes = n; } })) {
    builder.add(row);
    if ((builder.rows & 0x3fff) === 0) {
      options.signal?.throwIfAborted();
      report();
    }
  }
  report();
  const data = builder.finish();
  mkdirSync(options.indexDir, { recursive: true });
  const path = join(options.indexDir, indexFileName(departement));
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, data);
  renameSync(tmp, path);
  return { departement, path, rows: builder.rows, bytes: data.length, ms: Math.round(performance.now() - started) };
}
