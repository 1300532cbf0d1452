// Street indexes written in memory from a few rows, for matcher tests that need streets the Paris file lacks.
import { BanIndex } from "../../src/address/index/ban_index.ts";
import { IndexBuilder, type BanRow } from "../../src/address/index/builder.ts";

/** The index of one département, in shared memory as the worker pool reads it. */
export function writtenIndex(dept: string, rows: BanRow[]): BanIndex {
  const b = new IndexBuilder(dept);
  for (const r of rows) b.add(r);
  const bytes = b.finish();
  const shared = new SharedArrayBuffer(bytes.length);
  new Uint8Array(shared).set(bytes);
  return new BanIndex(shared);
}

/** One row per house number of a street, a metre or so apart from `origin`. */
export function streetRows(
  name: string,
  numbers: number[],
  at: Pick<BanRow, "codeInsee" | "codePostal" | "acheminement">,
  origin: { lat: number; lon: number } = { lat: 47, lon: -0.7 },
): BanRow[] {
  return numbers.map((n, i) => ({
    numero: n,
    rep: "",
    nomVoie: name,
    nomAfnor: "",
    lat: origin.lat + i / 1000,
    lon: origin.lon + i / 1000,
    ...at,
  }));
}
