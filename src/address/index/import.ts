// Imports a BAN file into data/ban/ (or any index directory), one index per département found in it: a local file
// (`adresses-XX.csv.gz`, the whole-country `adresses-france.csv.gz` or any BAN CSV, gzipped or plain), or a
// département code or `france` looked up in BAN_SOURCE, a directory or a URL base (the official download by default).
// Downloads go through HTTP_PROXY / HTTPS_PROXY unless NO_PROXY names the host (undici's EnvHttpProxyAgent).
import { existsSync, renameSync, rmSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import type { Readable } from "node:stream";
import { type Dispatcher, EnvHttpProxyAgent, interceptors, request } from "undici";
import { compileReference } from "../reference/compile.ts";
import { readBanCsv } from "./ban_csv.ts";
import type { BanRow } from "./builder.ts";
import { CommuneCodeMapper, type CommuneCodes, communeCodes } from "./commune_codes.ts";
import { splitByDepartement, UnsortedSourceError, type SplitIndex } from "./split_departements.ts";

export interface ImportProgress {
  /** Département being read ("" before the first row). */
  departement: string;
  /** Bytes of the source read so far (compressed or not, as stored) and its size when known (0 when not). */
  bytes: number;
  totalBytes: number;
  /** Rows read so far, all départements together. */
  rows: number;
  /** Département builders in memory (1 on a file sorted by département, as BAN exports are). */
  builders: number;
}

export interface ImportOptions {
  /** BAN_SOURCE: a directory of `adresses-XX.csv.gz` (or `.csv`) files or a URL base; used when the source is a code. */
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

/** Département of a BAN file name ("adresses-75.csv.gz" or "adresses-75.csv" → "75"). */
export function departementOfFile(path: string): string {
  const m = /adresses-([0-9AB]{2,3})\.csv(?:\.gz)?$/i.exec(basename(path));
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
  /** Frees what the source holds (the download's connections). */
  dispose(): Promise<void>;
}

const nothingToDispose = async () => {};

/** Names a département's file may have in BAN_SOURCE, the published one first; gzip or not is told by the bytes. */
function candidateFiles(code: string): string[] {
  return [`adresses-${code}.csv.gz`, `adresses-${code}.csv`];
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
    return {
      stream: source,
      name: basename(source),
      expected,
      total: statSync(source).size,
      dispose: nothingToDispose,
    };
  }
  const code = isFrance ? FRANCE : source.toUpperCase();
  const files = candidateFiles(code);
  const expected = isFrance ? [] : [code];
  if (/^https?:\/\//i.test(options.banSource)) return download(options.banSource, files, expected, options.signal);
  const file = files.find((f) => existsSync(join(options.banSource, f))) ?? files[0]!;
  const path = join(options.banSource, file);
  return { stream: path, name: file, expected, total: statSync(path).size, dispose: nothingToDispose };
}

/**
 * A BAN file could not be fetched from BAN_SOURCE (no network, a proxy or a server that refused): the fix is another
 * source, so callers can name one (BAN_SOURCE, or a file already on the machine).
 */
export class BanDownloadError extends Error {
  override name = "BanDownloadError";
}

/** GETs the first of `files` under `base` that exists (a 404 tries the next), through the proxy the environment
 *  names for it. */
async function download(
  base: string,
  files: readonly string[],
  expected: string[],
  signal: AbortSignal | undefined,
): Promise<OpenedSource> {
  // HTTP_PROXY, HTTPS_PROXY and NO_PROXY (or their lower-case forms), read by undici. A plain-http download is sent to
  // the proxy as an absolute-URI request, as curl does; https goes through a CONNECT tunnel. The official site
  // redirects "latest" to a dated directory.
  const dispatcher: Dispatcher = new EnvHttpProxyAgent({ proxyTunnel: false }).compose(
    interceptors.redirect({ maxRedirections: 5 }),
  );
  const dispose = () => dispatcher.destroy().catch(() => {});
  try {
    for (const [i, file] of files.entries()) {
      const url = `${base.replace(/\/+$/, "")}/${file}`;
      const res = await request(url, { signal, dispatcher }).catch((error: Error) => {
        if (signal?.aborted) throw error;
        throw new BanDownloadError(`Cannot download BAN file: ${url}: ${error.message}`, { cause: error });
      });
      if (res.statusCode === 404 && i < files.length - 1) {
        await res.body.dump();
        continue;
      }
      if (res.statusCode !== 200) {
        await res.body.dump();
        throw new BanDownloadError(`Cannot download BAN file: ${url} answered ${res.statusCode}`);
      }
      const total = Number(res.headers["content-length"] ?? 0);
      return {
        stream: res.body as unknown as Readable,
        name: file,
        expected,
        total: Number.isFinite(total) ? total : 0,
        dispose,
      };
    }
    throw new Error("Cannot download BAN file: no file name to try");
  } catch (err) {
    await dispose();
    throw err;
  }
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
  pass: { grouped: boolean; codes: () => CommuneCodes },
): Promise<{ written: SplitIndex[]; mapper: CommuneCodeMapper }> {
  const { grouped, codes } = pass;
  const { stream, name, expected, total, dispose } = await open(source, options);
  try {
    // Compiled once the source is known to be there: an offline start learns it at once, not after seconds.
    const mapper = new CommuneCodeMapper(codes());
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
    return { written, mapper };
  } finally {
    if (typeof stream !== "string") stream.destroy();
    await dispose();
  }
}

/**
 * Streams one source into `<indexDir>/ban-XX.idx`, one file per département its rows name, in code order. Files are
 * written under temporary names and renamed only once the whole source has been read, so that an interrupted or
 * failed import never leaves a partial index behind. A source not sorted by département is read a second time
 * (downloaded again for a URL) keeping one builder per département; official BAN exports are sorted and read once.
 */
export async function importBan(source: string, options: ImportOptions): Promise<ImportResult[]> {
  const codes = () => options.communeCodes ?? referenceCodes();
  let pass: { written: SplitIndex[]; mapper: CommuneCodeMapper };
  try {
    pass = await importPass(source, options, { grouped: false, codes });
  } catch (err) {
    if (!(err instanceof UnsortedSourceError)) throw err;
    pass = await importPass(source, options, { grouped: true, codes });
  }
  const { written, mapper } = pass;
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
