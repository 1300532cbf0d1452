// Nationwide postcode and commune lookups built from the compiled tables (compile.ts): which communes a postcode
// serves, which communes a city name designates (current names, arrondissements, delivery names, former communes),
// and the delivery name to print.
import { foldAccents } from "../normalize/fold_accents.ts";
import { cityKey } from "../normalize/match_key.ts";
import { maxEdits, stringDistance } from "../match/edit_distance.ts";
import type { ReferenceTables } from "./compile.ts";

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

const DISPLAY_STOP = new Set(["de", "du", "des", "la", "le", "les", "sur", "sous", "en", "et", "aux", "au", "l", "d"]);

function upperKey(text: string): string {
  return foldAccents(text).toUpperCase().replace(/[^A-Z0-9]+/g, " ").trim();
}

function titleCase(upper: string): string {
  return upper
    .toLowerCase()
    .split(" ")
    .map((w, i) => (i > 0 && DISPLAY_STOP.has(w) ? w : w.charAt(0).toUpperCase() + w.slice(1)))
    .join(" ");
}

export class Reference {
  readonly #byPostcode = new Map<string, PostcodePair[]>();
  readonly #postcodesOf = new Map<string, string[]>();
  readonly #name = new Map<string, string>();
  readonly #parent = new Map<string, string>();
  readonly #children = new Map<string, string[]>();
  // City key → its matches, best kind first (plain arrays: 100k keys, built in every worker thread at start).
  readonly #cities = new Map<string, CityMatch[]>();
  #cityKeys: string[] | undefined;

  constructor(tables: ReferenceTables) {
    for (const line of tables.communes.split("\n")) {
      const [code, name, parent] = line.split("|") as [string, string, string];
      this.#name.set(code, name);
      if (parent) {
        this.#parent.set(code, parent);
        const list = this.#children.get(parent) ?? [];
        list.push(code);
        this.#children.set(parent, list);
      }
    }
    for (const line of tables.communes.split("\n")) {
      const [code, , , key] = line.split("|") as [string, string, string, string];
      for (const c of this.expand(code)) this.#addCity(key, "name", c);
    }
    // "Paris 1er", "Paris 01", "Paris 1": cityKey() folds them all to "paris 1".
    for (const line of tables.pairs.split("\n")) {
      const [postcode, insee, acheminement, key] = line.split("|") as [string, string, string, string];
      const pairs = this.#byPostcode.get(postcode) ?? [];
      pairs.push({ insee, acheminement });
      this.#byPostcode.set(postcode, pairs);
      const pcs = this.#postcodesOf.get(insee) ?? [];
      if (!pcs.includes(postcode)) pcs.push(postcode);
      this.#postcodesOf.set(insee, pcs);
      this.#addCity(key, "acheminement", insee);
    }
    for (const line of tables.formers.split("\n")) {
      const [, , parent, key] = line.split("|") as [string, string, string, string];
      for (const c of this.expand(parent)) this.#addCity(key, "former", c);
    }
  }

  #addCity(key: string, kind: CityMatchKind, insee: string): void {
    let matches = this.#cities.get(key);
    if (matches === undefined) {
      matches = [];
      this.#cities.set(key, matches);
    }
    let match: CityMatch | undefined;
    for (const m of matches) if (m.kind === kind) match = m;
    if (match === undefined) {
      match = { kind, communes: [] };
      matches.push(match);
      // Kinds arrive name, acheminement, former (constructor order), so the array stays sorted best first.
    }
    if (!match.communes.includes(insee)) match.communes.push(insee);
  }

  /** A commune with arrondissements stands for them (BAN addresses carry the arrondissement code). */
  expand(insee: string): string[] {
    return this.#children.get(insee) ?? [insee];
  }

  /** Every arrondissement of the same city, or the commune alone. */
  siblings(insee: string): string[] {
    const parent = this.#parent.get(insee);
    return parent ? this.expand(parent) : [insee];
  }

  /** Communes served by a postcode; empty for a postcode that does not exist. */
  communesOfPostcode(postcode: string): string[] {
    return (this.#byPostcode.get(postcode) ?? []).map((p) => p.insee);
  }

  postcodesOf(insee: string): string[] {
    return this.#postcodesOf.get(insee) ?? [];
  }

  /** Matches of a city name by kind, best kinds first; empty when the name is no commune of France. */
  citiesNamed(city: string): CityMatch[] {
    return this.#lookupKey(cityKey(city));
  }

  #lookupKey(key: string): CityMatch[] {
    return this.#cities.get(key) ?? [];
  }

  /** City names within a few edits of `city`, among `communes` (or nationwide when omitted); a unique one wins. */
  closestCity(city: string, communes?: readonly string[]): CityMatch | null {
    const key = cityKey(city);
    const max = Math.min(2, maxEdits(key.length));
    if (max === 0) return null;
    let candidates: string[];
    if (communes) {
      const set = new Set<string>();
      for (const c of communes) {
        const name = this.#name.get(c);
        if (name) set.add(cityKey(name));
        const parent = this.#parent.get(c);
        if (parent) set.add(cityKey(this.#name.get(parent) ?? ""));
        for (const pc of this.postcodesOf(c)) {
          for (const p of this.#byPostcode.get(pc) ?? []) if (p.insee === c) set.add(cityKey(p.acheminement));
        }
      }
      candidates = [...set];
    } else {
      this.#cityKeys ??= [...this.#cities.keys()];
      candidates = this.#cityKeys;
    }
    let best: string | null = null;
    let bestD = max + 1;
    let tie = false;
    for (const cand of candidates) {
      if (Math.abs(cand.length - key.length) > max) continue;
      const d = stringDistance(key, cand, max);
      if (d < bestD) {
        best = cand;
        bestD = d;
        tie = false;
      } else if (d === bestD && d <= max) tie = true;
    }
    if (best === null || tie) return null;
    const matches = this.#lookupKey(best);
    if (matches.length === 0) return null;
    const all = new Set(matches.flatMap((m) => m.communes));
    return { kind: matches[0]!.kind, communes: communes ? [...all].filter((c) => communes.includes(c)) : [...all] };
  }

  /** Delivery name in display case: "PARIS" → "Paris", "PARIS 16" → "Paris 16", "L ABERGEMENT CLEMENCIAT" →
   *  "L'Abergement-Clémenciat" (the commune's own spelling whenever the delivery name is that name in capitals). */
  deliveryName(postcode: string, insee: string): string {
    const pair = (this.#byPostcode.get(postcode) ?? []).find((p) => p.insee === insee) ?? this.#byPostcode.get(postcode)?.[0];
    const name = this.#name.get(insee) ?? "";
    if (!pair) return name;
    const achem = upperKey(pair.acheminement);
    const parent = this.#parent.get(insee);
    for (const candidate of [name, parent ? this.#name.get(parent) ?? "" : ""]) {
      if (!candidate) continue;
      const up = upperKey(candidate);
      if (up === achem) return candidate;
      if (achem.startsWith(`${up} `)) return candidate + achem.slice(up.length);
    }
    return titleCase(achem);
  }
}
