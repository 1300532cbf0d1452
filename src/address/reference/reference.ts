// Nationwide postcode and commune lookups over the packed reference (pack_reference.ts, layout in
// reference_format.ts): which communes a postcode serves, which communes a city name designates (current names,
// arrondissements, delivery names, former communes), and the delivery name to print. Every lookup reads the shared
// typed arrays in place: a worker thread holds views, not a copy (it used to build about 44 MB of Maps).
import { boundedDistance, stringDistance } from "../../text/edit_distance.ts";
import { CITY_MAX_EDITS, maxEdits } from "../match/fuzzy_budget.ts";
import { foldAccents } from "../normalize/fold_accents.ts";
import { cityKey } from "../normalize/match_key.ts";
import { readPacked, type Views } from "../packed_file.ts";
import {
  CITY_KINDS,
  codeNumber,
  codeText,
  hashKey,
  REFERENCE_FORMAT,
  type REFERENCE_SECTIONS,
  sortedIndexOf,
  type ReferenceHeader,
} from "./reference_format.ts";

export interface PostcodePair {
  insee: string;
  acheminement: string;
}

/** How a city name matched: its official name, its delivery name, or the name of a former commune. */
export type CityMatchKind = "name" | "acheminement" | "former";

export interface CityMatch {
  kind: CityMatchKind;
  /** BAN-level INSEE codes (arrondissements for Paris, Lyon, Marseille). */
  communes: string[];
}

/** First words that name no commune on their own: a city cut to one of them is no cut name (communeByNameEnd). */
const GENERIC_FIRST_WORDS: ReadonlySet<string> = new Set([
  "saint",
  "sainte",
  "le",
  "la",
  "les",
  "notre",
  "grand",
  "petit",
]);
const DISPLAY_STOP = new Set(["de", "du", "des", "la", "le", "les", "sur", "sous", "en", "et", "aux", "au", "l", "d"]);

function upperKey(text: string): string {
  return foldAccents(text)
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, " ")
    .trim();
}

function titleCase(upper: string): string {
  return upper
    .toLowerCase()
    .split(" ")
    .map((w, i) => (i > 0 && DISPLAY_STOP.has(w) ? w : w.charAt(0).toUpperCase() + w.slice(1)))
    .join(" ");
}

export class Reference {
  readonly #v: Views<typeof REFERENCE_SECTIONS>;
  /** The blob section as a Buffer (no copy): strings are decoded straight out of it. */
  readonly #bytes: Buffer;
  readonly #hashMask: number;

  /** Views over a buffer made by packReference(); nothing is copied. */
  constructor(buffer: SharedArrayBuffer | ArrayBuffer) {
    const { views } = readPacked<typeof REFERENCE_SECTIONS, ReferenceHeader>(buffer, REFERENCE_FORMAT);
    this.#v = views;
    this.#bytes = Buffer.from(views.blob.buffer, views.blob.byteOffset, views.blob.length);
    this.#hashMask = this.#v.cityHash.length - 1;
  }

  #commune(insee: string): number {
    return sortedIndexOf(this.#v.communeCode, codeNumber(insee));
  }

  #codes(list: Uint32Array, start: number, end: number): string[] {
    const out: string[] = [];
    for (let i = start; i < end; i++) out.push(codeText(this.#v.communeCode[list[i]!]!));
    return out;
  }

  #nameOf(i: number): string {
    return this.#bytes.toString("utf8", this.#v.communeNameStart[i]!, this.#v.communeNameStart[i + 1]!);
  }

  #name(insee: string): string {
    const i = this.#commune(insee);
    return i < 0 ? "" : this.#nameOf(i);
  }

  #parent(insee: string): string | null {
    const i = this.#commune(insee);
    const p = i < 0 ? -1 : this.#v.communeParent[i]!;
    return p < 0 ? null : codeText(this.#v.communeCode[p]!);
  }

  #pairs(postcode: string): PostcodePair[] {
    const p = sortedIndexOf(this.#v.postcode, codeNumber(postcode));
    if (p < 0) return [];
    const { pairStart, pairCommune, pairAchem, achemStart, communeCode } = this.#v;
    const out: PostcodePair[] = [];
    for (let k = pairStart[p]!; k < pairStart[p + 1]!; k++) {
      const a = pairAchem[k]!;
      out.push({
        insee: codeText(communeCode[pairCommune[k]!]!),
        acheminement: this.#bytes.toString("utf8", achemStart[a]!, achemStart[a + 1]!),
      });
    }
    return out;
  }

  /** A commune with arrondissements stands for them (BAN addresses carry the arrondissement code). */
  expand(insee: string): string[] {
    const i = this.#commune(insee);
    if (i < 0) return [insee];
    const { childStart, childList } = this.#v;
    return childStart[i] === childStart[i + 1] ? [insee] : this.#codes(childList, childStart[i]!, childStart[i + 1]!);
  }

  /** Every arrondissement of the same city, or the commune alone. */
  siblings(insee: string): string[] {
    const parent = this.#parent(insee);
    return parent ? this.expand(parent) : [insee];
  }

  /** Communes served by a postcode; empty for a postcode that does not exist. */
  communesOfPostcode(postcode: string): string[] {
    const p = sortedIndexOf(this.#v.postcode, codeNumber(postcode));
    return p < 0 ? [] : this.#codes(this.#v.pairCommune, this.#v.pairStart[p]!, this.#v.pairStart[p + 1]!);
  }

  postcodesOf(insee: string): string[] {
    const i = this.#commune(insee);
    if (i < 0) return [];
    const { postcodeOfStart, postcodeOfList } = this.#v;
    const out: string[] = [];
    for (let k = postcodeOfStart[i]!; k < postcodeOfStart[i + 1]!; k++) out.push(codeText(postcodeOfList[k]!));
    return out;
  }

  /** Matches of a city name by kind, best kinds first; empty when the name is no commune of France. */
  citiesNamed(city: string): CityMatch[] {
    return this.#matches(this.#findKey(cityKey(city)));
  }

  /** Index of a city key, or -1: a probe of the shared hash table, the key compared in place. */
  #findKey(key: string): number {
    const { cityHash, cityKeyStart } = this.#v;
    const bytes = this.#bytes;
    let slot = hashKey(key) & this.#hashMask;
    for (;;) {
      const entry = cityHash[slot]!;
      if (entry === 0) return -1;
      const k = entry - 1;
      const start = cityKeyStart[k]!;
      if (cityKeyStart[k + 1]! - start === key.length) {
        let i = 0;
        while (i < key.length && bytes[start + i] === key.charCodeAt(i)) i++;
        if (i === key.length) return k;
      }
      slot = (slot + 1) & this.#hashMask;
    }
  }

  #matches(k: number): CityMatch[] {
    if (k < 0) return [];
    const { cityMatchStart, matchKind, matchCommuneStart, matchCommune } = this.#v;
    const out: CityMatch[] = [];
    for (let x = cityMatchStart[k]!; x < cityMatchStart[k + 1]!; x++) {
      out.push({
        kind: CITY_KINDS[matchKind[x]!]!,
        communes: this.#codes(matchCommune, matchCommuneStart[x]!, matchCommuneStart[x + 1]!),
      });
    }
    return out;
  }

  /** City names within a few edits of `city` (`maxEdits` at most), among `communes` (or nationwide when omitted); a
   *  unique one wins. */
  closestCity(city: string, communes?: readonly string[], options: { maxEdits?: number } = {}): CityMatch | null {
    const key = cityKey(city);
    const max = Math.min(options.maxEdits ?? CITY_MAX_EDITS, maxEdits(key.length));
    if (max === 0) return null;
    const best = communes ? this.#closestAmong(key, max, communes) : this.#closestAnywhere(key, max);
    if (best < 0) return null;
    const matches = this.#matches(best);
    if (matches.length === 0) return null;
    const all = new Set(matches.flatMap((m) => m.communes));
    return { kind: matches[0]!.kind, communes: communes ? [...all].filter((c) => communes.includes(c)) : [...all] };
  }

  /** Whether `city` is at most `maxEdits` slips from a name of commune `insee` (its own, its city's, its delivery
   *  names): the check of a city that named no commune against the commune where its street was found. */
  namesNearly(city: string, insee: string, maxEdits: number): boolean {
    const key = cityKey(city);
    for (const k of this.#keysOf(insee)) if (stringDistance(key, k, maxEdits) <= maxEdits) return true;
    return false;
  }

  /** The city keys of a commune: its own name, its city's (an arrondissement), its delivery names. */
  #keysOf(insee: string): Set<string> {
    const keys = new Set<string>();
    const name = this.#name(insee);
    if (name) keys.add(cityKey(name));
    const parent = this.#parent(insee);
    if (parent) keys.add(cityKey(this.#name(parent)));
    for (const pc of this.postcodesOf(insee)) {
      for (const p of this.#pairs(pc)) if (p.insee === insee) keys.add(cityKey(p.acheminement));
    }
    return keys;
  }

  /**
   * The one commune among `communes` (a postcode's) that `city` names with words added or cut at its end, or null when
   * none or several do. La Poste's delivery names add a distinguishing end to some communes ("COLMARS LES ALPES" for
   * Colmars, 04370; "MONTREAL DU GERS") and cut long names to 32 characters ("ESCUEILLENS ET ST JUST" for
   * Escueillens-et-Saint-Just-de-Bélengard); the data packages have neither. People cut them too, to the first word
   * ("Levallois" for Levallois-Perret, "Aix" for Aix-en-Provence, "Boulogne" for Boulogne-Billancourt): a cut name is
   * two words, or one that is no mere article or saint ("Saint" alone names no commune). `cutOnly` leaves out the
   * names with words added, for a city that names another commune whole ("Saint-Denis-des-Monts" is no Saint-Denis).
   */
  communeByNameEnd(city: string, communes: readonly string[], options: { cutOnly?: boolean } = {}): string | null {
    const { cutOnly = false } = options;
    const key = cityKey(city);
    const mayBeCut = key.includes(" ") || (key.length >= 3 && !GENERIC_FIRST_WORDS.has(key));
    let found: string | null = null;
    for (const c of communes) {
      for (const name of this.#keysOf(c)) {
        const added = !cutOnly && key.startsWith(`${name} `);
        if (!added && !(mayBeCut && name.startsWith(`${key} `))) continue;
        if (found !== null && found !== c) return null;
        found = c;
      }
    }
    return found;
  }

  /** The unique closest key among the names of `communes` (their own, their city's, their delivery names), or -1. */
  #closestAmong(key: string, max: number, communes: readonly string[]): number {
    const set = new Set<string>();
    for (const c of communes) for (const k of this.#keysOf(c)) set.add(k);
    let best: string | null = null;
    let bestD = max + 1;
    let tie = false;
    for (const cand of set) {
      if (Math.abs(cand.length - key.length) > max) continue;
      const d = stringDistance(key, cand, max);
      if (d < bestD) {
        best = cand;
        bestD = d;
        tie = false;
      } else if (d === bestD && d <= max) tie = true;
    }
    return best === null || tie ? -1 : this.#findKey(best);
  }

  /** The unique closest of every city key of France, or -1: a scan of the shared key bytes, no string created. */
  #closestAnywhere(key: string, max: number): number {
    const query = Buffer.from(key, "latin1");
    const starts = this.#v.cityKeyStart;
    const range = { aStart: 0, aEnd: query.length, bStart: 0, bEnd: 0, max };
    let best = -1;
    let bestD = max + 1;
    let tie = false;
    for (let k = 0; k + 1 < starts.length; k++) {
      const start = starts[k]!;
      const end = starts[k + 1]!;
      if (Math.abs(end - start - query.length) > max) continue;
      range.bStart = start;
      range.bEnd = end;
      const d = boundedDistance(query, this.#bytes, range);
      if (d < bestD) {
        best = k;
        bestD = d;
        tie = false;
      } else if (d === bestD && d <= max) tie = true;
    }
    return tie ? -1 : best;
  }

  /** Delivery name in display case: "PARIS" → "Paris", "PARIS 16" → "Paris 16", "POINTE A PITRE PRINCIPAL" →
   *  "Pointe-à-Pitre", "L ABERGEMENT CLEMENCIAT" →
   *  "L'Abergement-Clémenciat" (the commune's own spelling whenever the delivery name is that name in capitals). */
  deliveryName(postcode: string, insee: string): string {
    const pairs = this.#pairs(postcode);
    const pair = pairs.find((p) => p.insee === insee) ?? pairs[0];
    const name = this.#name(insee);
    if (!pair) return name;
    const achem = upperKey(pair.acheminement);
    const parent = this.#parent(insee);
    for (const candidate of [name, parent ? this.#name(parent) : ""]) {
      if (!candidate) continue;
      const up = upperKey(candidate);
      if (up === achem) return candidate;
      // "PARIS 16": the arrondissement's number is part of the name people write; "POINTE A PITRE PRINCIPAL",
      // "GRENADE SUR GARONNE": La Poste's qualifiers are line 6's (acheminement()), the city is the commune's name.
      if (achem.startsWith(`${up} `))
        return /^ \d+$/.test(achem.slice(up.length)) ? candidate + achem.slice(up.length) : candidate;
    }
    return titleCase(achem);
  }

  /** The delivery name as La Poste prints it on line 6 ("GRENADE SUR GARONNE"), without the "PRINCIPAL" of a main
   *  office that the current base no longer writes ("POINTE A PITRE"); null when no pair lists the postcode. */
  acheminement(postcode: string, insee: string): string | null {
    const pairs = this.#pairs(postcode);
    const pair = pairs.find((p) => p.insee === insee) ?? pairs[0];
    return pair ? upperKey(pair.acheminement).replace(/ PRINCIPAL$/, "") : null;
  }
}
