// Imports a BAN file into data/ban/ (or any index directory), one index per département found in it: a local file
// (`adresses-XX.csv.gz`, the whole-country `adresses-france.csv.gz` or any BAN CSV), or a département code or
// `france` looked up in BAN_SOURCE, a directory or a URL base (the official download by default).
import { renameSync, rmSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import type { Readable } from "node:stream";
import { Agent, interceptors, request } from "undici";
import { compileReference } from "../reference/compile.ts";
import { readBanCsv } from "./ban_csv.ts";
import type { BanRow } from "./builder.ts";
import { CommuneCodeMapper, type CommuneCodes, communeCodes } from "./commune_codes.ts";
import { splitByDepartement, UnsortedSourceError, type SplitIndex } from "./split_departements.ts";

export interface ImportProgress {
  /** Département being read ("" before the first row). */
  departement: string;
  /** Compressed bytes read so far and the total when known (0 when not). */
  bytes: number;
  totalBytes: number;
  /** Rows read so far, all départements together. */
  rows: number;
  /** Département builders in memory (1 on a file sorted by département, as BAN exports are). */
  builders: number;
}

export interface ImportOptions {
  /** BAN_SOURCE: a directory of `adresses-XX.csv.gz` files or a URL base; used when the source is a code. */
  banSource: string;
  indexDir: string;
  onProgress?: (progress: ImportProgress) => void;
  signal?: AbortSignal;
  /** Current and former INSEE codes (commune_codes.ts); compiled from the nationwide reference when omitted. */
  communeCodes?: CommuneCodes;
  /** Told when rows carry INSEE codes of no commune; process.emitWarning() when omitted. */
  onWarning?: (message: string) => void;
}

export interface ImportResult {
  departement: string;
  path: string;
  rows: number;
  bytes: number;
  ms: number;
  /** Rows that carried a former commune's code, indexed under the current commune. */
  remappedRows: number;
  /** Rows whose INSEE code is no commune of the reference (indexed as written), by code. */
  unknownCommunes: Record<string, number>;
}

const CODE = /^(?:\d{2}|2[AB]|97\d)$/i;
/** Source code of the whole-country file. */
const FRANCE = "france";

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

interface OpenedSource {
  stream: Readable | string;
  /** File name, for messages. */
  name: string;
  /** Départements the source stands for ("75" for adresses-75): indexed, if empty, even when no row names them. */
  expected: string[];
  total: number;
}

async function open(source: string, options: ImportOptions): Promise<OpenedSource> {
  const isFrance = source.toLowerCase() === FRANCE;
  if (!isFrance && !isDepartementCode(source)) {
    let expected: string[] = [];
    try {
      expected = [departementOfFile(source)];
    } catch {
      // Any other name (adresses-france.csv.gz, an extract): the rows alone tell the départements.
    }
    return { stream: source, name: basename(source), expected, total: statSync(source).size };
  }
  const code = isFrance ? FRANCE : source.toUpperCase();
  const file = `adresses-${code}.csv.gz`;
  const expected = isFrance ? [] : [code];
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
    return { stream: res.body as unknown as Readable, name: file, expected, total: Number.isFinite(total) ? total : 0 };
  }
  const path = join(options.banSource, file);
  return { stream: path, name: file, expected, total: statSync(path).size };
}

let compiledCodes: CommuneCodes | undefined;
/** The reference's commune codes, compiled once per process (a start may import several départements). */
function referenceCodes(): CommuneCodes {
  compiledCodes ??= communeCodes(compileReference());
  return compiledCodes;
}

async function* mapped(rows: AsyncIterable<BanRow>, mapper: CommuneCodeMapper): AsyncGenerator<BanRow> {
  for await (const row of rows) yield mapper.map(row);
}

async function importPass(
  source: string,
  options: ImportOptions,
  pass: { grouped: boolean; mapper: CommuneCodeMapper },
): Promise<SplitIndex[]> {
  const { grouped, mapper } = pass;
  const { stream, name, expected, total } = await open(source, options);
  let bytes = 0;
  const rows = readBanCsv(stream, {
    onBytes: (n) => {
      bytes = n;
    },
  });
  const written = await splitByDepartement(mapped(rows, mapper), {
    indexDir: options.indexDir,
    grouped,
    expected,
    signal: options.signal,
    onProgress: options.onProgress && ((p) => options.onProgress!({ ...p, bytes, totalBytes: total })),
  });
  if (written.length === 0) throw new TypeError(`Cannot import BAN file: no address rows in ${name}`);
  return written;
}

/**
 * Streams one source into `<indexDir>/ban-XX.idx`, one file per département its rows name, in code order. Files are
 * written under temporary names and renamed only once the whole source has been read, so that an interrupted or
 * failed import never leaves a partial index behind. A source not sorted by département is read a second time
 * (downloaded again for a URL) keeping one builder per département; official BAN exports are sorted and read once.
 */
export async function importBan(source: string, options: ImportOptions): Promise<ImportResult[]> {
  const codes = options.communeCodes ?? referenceCodes();
  let mapper = new CommuneCodeMapper(codes);
  let written: SplitIndex[];
  try {
    written = await importPass(source, options, { grouped: false, mapper });
  } catch (err) {
    if (!(err instanceof UnsortedSourceError)) throw err;
    mapper = new CommuneCodeMapper(codes);
    written = await importPass(source, options, { grouped: true, mapper });
  }
  try {
    for (const w of written) renameSync(w.tmpPath, w.path);
  } catch (err) {
    for (const w of written) rmSync(w.tmpPath, { force: true });
    throw err;
  }
  if (mapper.unknownRows > 0) {
    const codes = mapper.unknownCodes;
    const listed = codes.slice(0, 10).map(([code, n]) => `${code} (${n})`);
    const more = codes.length > 10 ? `, and ${codes.length - 10} more` : "";
    const message = `BAN import: ${mapper.unknownRows} rows carry INSEE codes of no current or former commune, indexed as written: ${listed.join(", ")}${more}`;
    if (options.onWarning) options.onWarning(message);
    else process.emitWarning(message, { code: "VRAI_BAN_UNKNOWN_COMMUNE" });
  }
  return written.map(({ departement, path, rows, bytes, ms }) => {
    const counts = mapper.counts(departement);
    return {
      departement,
      path,
      rows,
      bytes,
      ms,
      remappedRows: counts.remapped,
      unknownCommunes: Object.fromEntries(counts.unknown),
    };
  });
}
