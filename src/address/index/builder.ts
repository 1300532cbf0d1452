// Builds one département's index file from BAN rows (see format.ts). Rows may come in any order: they are grouped
// by (INSEE code, street name) in memory, which BAN recommends since 189 Paris street names exist in several
// arrondissements (shared/data/README.md), then streets are sorted by commune and addresses by number and suffix.
import { MATCH_KEY_VERSION, streetKey } from "../normalize/match_key.ts";
import { LIEU_DIT } from "../normalize/street_types.ts";
import { phoneticKey } from "../normalize/phonetic.ts";
import { canonicalSuffix } from "./suffix.ts";
import { compoundNameParts } from "./compound_names.ts";
import { newColumn, type TypedColumn, writePacked } from "../packed_file.ts";
import {
  ADDRESS_COLUMNS,
  ALT_COLUMNS,
  asciiBytes,
  FORMAT_VERSION,
  HASH_TABLES,
  hashBytes,
  INDEX_FORMAT,
  INDEX_SECTIONS,
  letterMask,
  NIL,
  STREET_COLUMNS,
  type IndexHeader,
  type SectionName,
} from "./format.ts";

export interface BanRow {
  numero: number;
  rep: string;
  nomVoie: string;
  nomAfnor: string;
  codePostal: string;
  codeInsee: string;
  acheminement: string;
  lat: number;
  lon: number;
  /** Other names of the street or of the address's place: BAN `alias`, `nom_ld` / `lieudit_complement_nom`. */
  altNames?: readonly string[];
  /** BAN's id of the address (`75101_cfq3tf_00001_bis`), when the file has one. */
  banId?: string;
  /** The former commune the address lies in, within a commune nouvelle (BAN's `code_insee_ancienne_commune`, or the
   *  former code the row carried before it was mapped to its current commune): its streets are kept apart from the
   *  same names of the other former communes. */
  formerCommune?: string;
}

interface StreetAcc {
  commune: string;
  name: string;
  afnor: string;
  /** BAN's id of the street (`75101_cfq3tf`): its addresses' ids are this, `_`, the number on five digits, `_` suffix. */
  banId: string;
  numbers: number[];
  suffixes: number[];
  postcodes: number[];
  achems: number[];
  lats: number[];
  lons: number[];
  alts: Set<string>;
}

class Interner {
  readonly list: string[] = [];
  readonly #ids = new Map<string, number>();
  id(value: string): number {
    let id = this.#ids.get(value);
    if (id === undefined) {
      id = this.list.length;
      this.list.push(value);
      this.#ids.set(value, id);
    }
    return id;
  }
}

export class IndexBuilder {
  readonly departement: string;
  readonly #streets = new Map<string, StreetAcc>();
  readonly #postcodes = new Interner();
  readonly #achems = new Interner();
  readonly #suffixes = new Interner();
  #rows = 0;

  constructor(departement: string) {
    this.departement = departement.toUpperCase();
    this.#suffixes.id("");
  }

  get rows(): number {
    return this.#rows;
  }

  add(row: BanRow): void {
    // Two former communes merged into one may each have had a "Place de la République": two streets, each with its
    // own numbers, postcode and place, not one whose numbers run over both.
    const former = row.formerCommune === undefined || row.formerCommune === row.codeInsee ? "" : row.formerCommune;
    const id = `${row.codeInsee}\u0000${former}\u0000${row.nomVoie}`;
    let st = this.#streets.get(id);
    if (st === undefined) {
      st = {
        commune: row.codeInsee,
        name: row.nomVoie,
        afnor: row.nomAfnor,
        banId: streetBanId(row),
        numbers: [],
        suffixes: [],
        postcodes: [],
        achems: [],
        lats: [],
        lons: [],
        alts: new Set(),
      };
      this.#streets.set(id, st);
    }
    for (const alt of row.altNames ?? []) {
      const name = alt.trim();
      if (name !== "" && name !== row.nomVoie) st.alts.add(name);
    }
    st.numbers.push(row.numero);
    st.suffixes.push(this.#suffixes.id(row.rep.trim().toLowerCase()));
    st.postcodes.push(this.#postcodes.id(row.codePostal));
    st.achems.push(this.#achems.id(row.acheminement));
    st.lats.push(Math.round(row.lat * 1e6));
    st.lons.push(Math.round(row.lon * 1e6));
    this.#rows++;
  }

  /** Serialises the index; the builder can be dropped afterwards. */
  finish(): Uint8Array {
    const entries = [...this.#streets.values()].map((st) => ({
      st,
      key: streetKey(st.name),
      afnorKey: streetKey(st.afnor).key,
    }));
    entries.sort((a, b) =>
      a.st.commune < b.st.commune
        ? -1
        : a.st.commune > b.st.commune
          ? 1
          : a.key.key < b.key.key
            ? -1
            : a.key.key > b.key.key
              ? 1
              : 0,
    );
    const streetCount = entries.length;
    const addressCount = this.#rows;
    const suffixOrder = this.#suffixes.list.map((s) => canonicalSuffix(s));
    // Alternative names whose key differs from the street's own: BAN's aliases and lieux-dits ("Lieu-dit X" is keyed
    // "x", as a query reads it), and the halves of a name joined by "et" (compound_names.ts).
    const alts: { street: number; key: string }[] = [];
    for (const [i, { st, key }] of entries.entries()) {
      const seen = new Set<string>([key.key]);
      for (const name of [...st.alts, ...compoundNameParts(st.name)]) {
        const k = streetKey(name);
        const altKey = k.type === LIEU_DIT && k.nameTokens.length > 0 ? k.nameTokens.join(" ") : k.key;
        if (altKey === "" || seen.has(altKey)) continue;
        seen.add(altKey);
        alts.push({ street: i, key: altKey });
      }
    }

    const cols = {} as Record<string, TypedColumn>;
    for (const [name, type] of Object.entries(STREET_COLUMNS)) cols[name] = newColumn(type, streetCount);
    for (const [name, type] of Object.entries(ADDRESS_COLUMNS)) cols[name] = newColumn(type, addressCount);
    for (const [name, type] of Object.entries(ALT_COLUMNS)) cols[name] = newColumn(type, alts.length);
    let hashBits = 4;
    while (1 << hashBits < streetCount * 2) hashBits++;
    for (const [name, type] of Object.entries(HASH_TABLES)) cols[name] = newColumn(type, 1 << hashBits).fill(NIL);

    const blobParts: Buffer[] = [];
    let blobLength = 0;
    const put = (s: string | Uint8Array): [number, number] => {
      const b = typeof s === "string" ? Buffer.from(s, "utf8") : Buffer.from(s);
      blobParts.push(b);
      const off = blobLength;
      blobLength += b.length;
      return [off, b.length];
    };

    const communes: IndexHeader["communes"] = [];
    const communeIds = new Map<string, number>();
    let addr = 0;
    const mask = (1 << hashBits) - 1;
    const link = (table: string, next: string, hash: number, i: number) => {
      const t = cols[table]!;
      const slot = hash & mask;
      cols[next]![i] = t[slot]!;
      t[slot] = i;
    };
    for (let i = 0; i < streetCount; i++) {
      const { st, key, afnorKey } = entries[i]!;
      let c = communeIds.get(st.commune);
      if (c === undefined) {
        c = communes.length;
        communeIds.set(st.commune, c);
        communes.push({ code: st.commune, firstStreet: i, streetCount: 0 });
      }
      communes[c]!.streetCount++;
      cols.stCommune![i] = c;
      const [nameOff, nameLen] = put(st.name);
      cols.stNameOff![i] = nameOff;
      cols.stNameLen![i] = nameLen;
      const keyBytes = asciiBytes(key.key);
      const [keyOff, keyLen] = put(keyBytes);
      cols.stKeyOff![i] = keyOff;
      cols.stKeyLen![i] = keyLen;
      const typeLen = key.type === null ? 0 : key.type.length + 1;
      cols.stTypeLen![i] = typeLen;
      const phonBytes = asciiBytes(phoneticKey(key.nameTokens));
      const [phonOff, phonLen] = put(phonBytes);
      cols.stPhonOff![i] = phonOff;
      cols.stPhonLen![i] = phonLen;
      const [idOff, idLen] = put(asciiBytes(st.banId));
      cols.stBanIdOff![i] = idOff;
      cols.stBanIdLen![i] = idLen;
      link("hashPhon", "stNextPhon", hashBytes(phonBytes, 0, phonBytes.length), i);
      cols.stMask![i] = letterMask(keyBytes, typeLen, keyBytes.length);
      link("hashKey", "stNextKey", hashBytes(keyBytes, 0, keyBytes.length), i);
      link("hashName", "stNextName", hashBytes(keyBytes, typeLen, keyBytes.length), i);
      if (afnorKey !== key.key && afnorKey !== "") {
        const afnorBytes = asciiBytes(afnorKey);
        const [aOff, aLen] = put(afnorBytes);
        cols.stAfnorOff![i] = aOff;
        cols.stAfnorLen![i] = aLen;
        link("hashAfnor", "stNextAfnor", hashBytes(afnorBytes, 0, afnorBytes.length), i);
      } else {
        cols.stNextAfnor![i] = NIL;
      }

      // Addresses by number, then suffix (no suffix first).
      const n = st.numbers.length;
      const order = Array.from({ length: n }, (_, k) => k);
      order.sort(
        (a, b) =>
          st.numbers[a]! - st.numbers[b]! ||
          (suffixOrder[st.suffixes[a]!]! < suffixOrder[st.suffixes[b]!]!
            ? -1
            : suffixOrder[st.suffixes[a]!]! > suffixOrder[st.suffixes[b]!]!
              ? 1
              : 0),
      );
      cols.stAddrStart![i] = addr;
      cols.stAddrCount![i] = n;
      const pcCount = new Map<number, number>();
      for (const k of order) {
        cols.adNumber![addr] = st.numbers[k]!;
        cols.adSuffix![addr] = st.suffixes[k]!;
        cols.adPostcode![addr] = st.postcodes[k]!;
        cols.adAchem![addr] = st.achems[k]!;
        cols.adLat![addr] = st.lats[k]!;
        cols.adLon![addr] = st.lons[k]!;
        pcCount.set(st.postcodes[k]!, (pcCount.get(st.postcodes[k]!) ?? 0) + 1);
        addr++;
      }
      // The street's postcode is its most frequent one (a 16e street can carry both 75016 and 75116).
      cols.stPostcode![i] = [...pcCount.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 0;
    }

    for (const [a, { street, key }] of alts.entries()) {
      const bytes = asciiBytes(key);
      const [off, len] = put(bytes);
      cols.altStreet![a] = street;
      cols.altKeyOff![a] = off;
      cols.altKeyLen![a] = len;
      link("hashAlt", "altNext", hashBytes(bytes, 0, bytes.length), a);
    }

    // Per commune, its streets ordered by the length of their name (without the type).
    for (const c of communes) {
      const ids = Array.from({ length: c.streetCount }, (_, k) => c.firstStreet + k);
      const nameLength = (s: number) => cols.stKeyLen![s]! - cols.stTypeLen![s]!;
      ids.sort((a, b) => nameLength(a) - nameLength(b) || a - b);
      cols.stLenOrder!.set(ids, c.firstStreet);
    }

    const blob = Buffer.concat(blobParts, blobLength);
    const data: Record<string, TypedColumn> = { ...cols, blob };
    return writePacked(INDEX_FORMAT, data as Record<SectionName, TypedColumn>, {
      header: (places): IndexHeader => {
        const sections = {} as IndexHeader["sections"];
        for (const name of Object.keys(INDEX_SECTIONS) as SectionName[]) {
          sections[name] = { type: INDEX_SECTIONS[name], offset: places[name].offset, length: places[name].length };
        }
        return {
          version: FORMAT_VERSION,
          matchKeys: MATCH_KEY_VERSION,
          departement: this.departement,
          builtAt: new Date().toISOString(),
          communes,
          postcodes: this.#postcodes.list,
          acheminements: this.#achems.list,
          suffixes: this.#suffixes.list,
          streetCount,
          addressCount,
          hashBits,
          sections,
        };
      },
    });
  }
}

/**
 * The street part of an address's BAN id: the id without its number and suffix (`75101_cfq3tf_00001_bis` ->
 * `75101_cfq3tf`), or "" when the row has no id or one not of that form (every Paris row is).
 */
export function streetBanId(row: Pick<BanRow, "banId" | "numero" | "rep">): string {
  const id = row.banId;
  if (id === undefined) return "";
  const tail = `_${String(row.numero).padStart(5, "0")}${row.rep.trim() ? `_${row.rep.trim().toLowerCase()}` : ""}`;
  return id.toLowerCase().endsWith(tail) ? id.slice(0, id.length - tail.length) : "";
}
