// Streams BAN rows out of an `adresses-XX.csv.gz` or a plain `.csv` (format: shared/data/README.md): `;`-separated,
// UTF-8, header line, no quoting in practice (a quoted field is still handled). Nothing is held but the current line.
import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import type { Readable } from "node:stream";
import type { BanRow } from "./builder.ts";
import { decompressed } from "./decompress.ts";

const REQUIRED = [
  "numero",
  "rep",
  "nom_voie",
  "code_postal",
  "code_insee",
  "lon",
  "lat",
  "libelle_acheminement",
  "nom_afnor",
] as const;

/** The BAN id of each address (`75101_cfq3tf_00001`), read when the file has it: the answers of bulk jobs carry it. */
const ID_COLUMN = "id";

/** The former commune of the address within a commune nouvelle, when the file has the column (the address export). */
const FORMER_COMMUNE_COLUMN = "code_insee_ancienne_commune";

/** Optional columns of other names: the street's alias, and the lieu-dit of the address (`nom_ld` in the address
 *  export, `lieudit_complement_nom` in BAL files). Several names in one field are separated by "|". */
const ALTERNATIVE = ["alias", "nom_ld", "lieudit_complement_nom"] as const;

function alternativeNames(fields: readonly string[], columns: readonly number[]): string[] {
  const out: string[] = [];
  for (const c of columns) {
    const value = fields[c];
    if (!value) continue;
    for (const name of value.split("|")) if (name.trim() !== "") out.push(name.trim());
  }
  return out;
}

function splitLine(line: string): string[] {
  if (!line.includes('"')) return line.split(";");
  const out: string[] = [];
  let cur = "";
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        cur += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cur += c;
    } else if (c === '"') quoted = true;
    else if (c === ";") {
      out.push(cur);
      cur = "";
    } else cur += c;
  }
  out.push(cur);
  return out;
}

export interface ReadBanOptions {
  /** Called with the number of bytes of the source (compressed or not) read so far (for the progress bar). */
  onBytes?: (bytes: number) => void;
}

/** Yields the rows of a BAN CSV, gzipped or not (told by its first bytes), given as a path or a byte stream. */
export async function* readBanCsv(source: string | Readable, options: ReadBanOptions = {}): AsyncGenerator<BanRow> {
  const { onBytes } = options;
  const raw = typeof source === "string" ? createReadStream(source) : source;
  if (onBytes) {
    let n = 0;
    raw.on("data", (chunk: Buffer) => {
      n += chunk.length;
      onBytes(n);
    });
  }
  const text = await decompressed(raw).catch((err: unknown) => {
    raw.destroy();
    throw err;
  });
  const lines = createInterface({ input: text, crlfDelay: Infinity });
  type Columns = Record<(typeof REQUIRED)[number], number>;
  let idx: Columns | undefined;
  let altIdx: number[] = [];
  let idIdx = -1;
  let formerIdx = -1;
  // try/finally: a consumer that stops early (an abort, an unsorted file read again) must not leave the file open or
  // the download running.
  try {
    for await (const line of lines) {
      if (line === "") continue;
      const f = splitLine(line);
      if (idx === undefined) {
        const cols = f.map((c) => c.trim().replace(/^\uFEFF/, ""));
        const missing = REQUIRED.filter((c) => !cols.includes(c));
        if (missing.length > 0) throw new TypeError(`Cannot read BAN file: missing columns ${missing.join(", ")}`);
        idx = Object.fromEntries(REQUIRED.map((c) => [c, cols.indexOf(c)])) as Columns;
        altIdx = ALTERNATIVE.map((c) => cols.indexOf(c)).filter((i) => i >= 0);
        idIdx = cols.indexOf(ID_COLUMN);
        formerIdx = cols.indexOf(FORMER_COMMUNE_COLUMN);
        continue;
      }
      const altNames = alternativeNames(f, altIdx);
      const numero = Number(f[idx.numero]);
      const lat = Number(f[idx.lat]);
      const lon = Number(f[idx.lon]);
      if (!Number.isFinite(numero) || f[idx.nom_voie] === "" || f[idx.code_insee] === "") continue;
      yield {
        numero,
        rep: f[idx.rep] ?? "",
        nomVoie: f[idx.nom_voie]!,
        nomAfnor: f[idx.nom_afnor] ?? "",
        codePostal: f[idx.code_postal]!,
        codeInsee: f[idx.code_insee]!,
        acheminement: f[idx.libelle_acheminement] ?? "",
        lat: Number.isFinite(lat) ? lat : 0,
        lon: Number.isFinite(lon) ? lon : 0,
        ...(altNames.length > 0 ? { altNames } : {}),
        ...(idIdx >= 0 && f[idIdx] ? { banId: f[idIdx] } : {}),
        ...(formerIdx >= 0 && f[formerIdx] ? { formerCommune: f[formerIdx]!.toUpperCase() } : {}),
      };
    }
  } finally {
    lines.close();
    text.destroy();
    raw.destroy();
  }
}
