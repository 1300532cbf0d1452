// A seeded evaluation set drawn from an index (bench/address_accuracy.ts, bench/address_match.ts, tests): real
// addresses written as users write them, with the answer expected for each category. Deterministic for a seed.
import type { BanIndex } from "./index/ban_index.ts";
import { streetKey } from "./normalize/match_key.ts";
import type { AddressInput, AddressReason, AddressVerdict } from "./types.ts";

export type EvalCategory =
  | "exact" | "typo" | "abbreviation" | "wrong_postcode" | "missing_number" | "out_of_range" | "invented" | "chimera";

export interface EvalCase {
  category: EvalCategory;
  input: AddressInput;
  verdict: AddressVerdict;
  /** A reason the answer must carry (none for exact/abbreviation). */
  reason: AddressReason | null;
  /** The street the answer must name (display form), null when no street is expected. */
  street: string | null;
  postcode: string | null;
}

/** mulberry32: small, fast, good enough for sampling. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ABBREVIATIONS: ReadonlyArray<readonly [RegExp, string]> = [
  [/^Boulevard /, "Bd "], [/^Avenue /, "Av "], [/^Rue /, "R "], [/^Place /, "Pl "], [/^Impasse /, "Imp "],
  [/^Passage /, "Pass "], [/^Square /, "Sq "], [/^Faubourg /, "Fbg "], [/^Allée /, "All "], [/^Quai /, "Qu "],
  [/ Saint-/, " St-"], [/ Sainte-/, " Ste-"], [/ du Général /, " du Gal "], [/ du Maréchal /, " du Mal "],
  [/ du Docteur /, " du Dr "],
];
const LETTERS = "abcdefghijklmnopqrstuvwxyz";
const SYLLABLES = ["ka", "zo", "bru", "vex", "tal", "quin", "dor", "pli", "gum", "rax", "wel", "fro", "jib", "nup", "sly"];
const TYPES = ["Rue", "Avenue", "Boulevard", "Impasse", "Place", "Allée"];

interface Row {
  street: number;
  row: number;
}

export interface EvalSetOptions {
  seed?: number;
  perCategory?: number;
}

/** Builds `perCategory` cases of each category from one département index (Paris in practice). */
export function buildEvalSet(index: BanIndex, options: EvalSetOptions = {}): EvalCase[] {
  const { seed = 42, perCategory = 1000 } = options;
  const random = seededRandom(seed);
  const pick = (n: number) => Math.floor(random() * n);
  const { st, ad, header } = index;
  const streets = header.streetCount;
  const postcodes = header.postcodes.filter((p) => /^75\d{3}$/.test(p));
  const city = "Paris";

  const plain = new Set(["", "b", "t", "q", "bis", "ter", "quater", "a", "c", "d"]);
  const randomRow = (): Row => {
    for (;;) {
      const s = pick(streets);
      const count = st.stAddrCount[s]!;
      if (count === 0) continue;
      const row = st.stAddrStart[s]! + pick(count);
      if (ad.adNumber[row]! === 0 || !plain.has(header.suffixes[ad.adSuffix[row]!]!)) continue;
      // BAN's Paris file carries pseudo-streets named after a parcel ("23P1 Quai de l'Oise", "Voie De/13").
      if (!/^[A-Za-zÀ-ÿ]/.test(index.streetName(s)) || index.streetName(s).includes("/")) continue;
      return { street: s, row };
    }
  };
  const numberText = (row: number) => {
    const rep = header.suffixes[ad.adSuffix[row]!]!;
    return rep === "" ? String(ad.adNumber[row]) : `${ad.adNumber[row]} ${rep}`;
  };
  const pc = (row: number) => header.postcodes[ad.adPostcode[row]!]!;
  // Draws rows until `make` accepts one (null: try another), for the categories that need a particular street.
  const draw = (make: (drawn: { street: number; row: number; name: string }) => EvalCase | null): EvalCase => {
    for (;;) {
      const { street, row } = randomRow();
      const c = make({ street, row, name: index.streetName(street) });
      if (c !== null) return c;
    }
  };
  const out: EvalCase[] = [];

  for (let i = 0; i < perCategory; i++) {
    const { street, row } = randomRow();
    const name = index.streetName(street);
    out.push({ category: "exact", input: { line: `${numberText(row)} ${name}, ${pc(row)} ${city}` }, verdict: "deliverable", reason: null, street: name, postcode: pc(row) });
  }
  for (let i = 0; i < perCategory; i++) {
    // One slip in the name (not in the type word): substitution, deletion, insertion or transposition.
    out.push(
      draw(({ row, name }) => {
        const space = name.indexOf(" ");
        const body = name.slice(space + 1);
        if (body.replace(/[^A-Za-z]/g, "").length < 6) return null;
        let pos = space + 1 + pick(body.length);
        while (!/[a-z]/.test(name[pos]!)) pos = space + 1 + pick(body.length);
        const kind = pick(4);
        const letter = LETTERS[pick(26)]!;
        let typo: string;
        if (kind === 0) typo = name.slice(0, pos) + (letter === name[pos] ? "x" : letter) + name.slice(pos + 1);
        else if (kind === 1) typo = name.slice(0, pos) + name.slice(pos + 1);
        else if (kind === 2) typo = name.slice(0, pos) + letter + name.slice(pos);
        else typo = /[a-z]/.test(name[pos + 1] ?? "") && name[pos + 1] !== name[pos] ? name.slice(0, pos) + name[pos + 1] + name[pos] + name.slice(pos + 2) : name.slice(0, pos) + name.slice(pos + 1);
        // A slip inside an article ("Rue d la Reynie") changes nothing once normalised: that is no typo to correct.
        if (streetKey(typo).key === streetKey(name).key) return null;
        return { category: "typo", input: { line: `${numberText(row)} ${typo}, ${pc(row)} ${city}` }, verdict: "corrected", reason: "street_corrected", street: name, postcode: pc(row) };
      }),
    );
  }
  for (let i = 0; i < perCategory; i++) {
    out.push(
      draw(({ row, name }) => {
        let short = name;
        for (const [re, to] of ABBREVIATIONS) short = short.replace(re, to);
        if (short === name) return null;
        return { category: "abbreviation", input: { line: `${numberText(row)} ${short.toLowerCase()} ${pc(row)} ${city.toUpperCase()}` }, verdict: "deliverable", reason: null, street: name, postcode: pc(row) };
      }),
    );
  }
  for (let i = 0; i < perCategory; i++) {
    out.push(
      draw(({ street, row, name }) => {
        const wrong = postcodes[pick(postcodes.length)]!;
        // The street must not exist under the wrong arrondissement, or the input would be right there.
        const ids: number[] = [];
        index.byKey(index.blob.subarray(st.stKeyOff[street]!, st.stKeyOff[street]! + st.stKeyLen[street]!), ids);
        if (wrong === pc(row) || wrong === "75116" || pc(row) === "75116" || ids.some((s) => index.streetPostcodes(s).has(wrong))) return null;
        return { category: "wrong_postcode", input: { line: `${numberText(row)} ${name}, ${wrong} ${city}` }, verdict: "corrected", reason: "postcode_corrected", street: name, postcode: pc(row) };
      }),
    );
  }
  for (let i = 0; i < perCategory; i++) {
    const { street, row } = randomRow();
    const name = index.streetName(street);
    out.push({ category: "missing_number", input: { street: name, postcode: pc(row), city }, verdict: "incomplete", reason: "missing_house_number", street: name, postcode: null });
  }
  for (let i = 0; i < perCategory; i++) {
    const { street, row } = randomRow();
    const name = index.streetName(street);
    // Beyond the last number of every street of that name in the index (the number must exist nowhere).
    const same: number[] = [];
    index.byKey(index.blob.subarray(st.stKeyOff[street]!, st.stKeyOff[street]! + st.stKeyLen[street]!), same);
    const last = Math.max(...same.map((s) => ad.adNumber[st.stAddrStart[s]! + st.stAddrCount[s]! - 1]!));
    const beyond = last + 20 + pick(500);
    out.push({ category: "out_of_range", input: { line: `${beyond} ${name} ${pc(row)} ${city}` }, verdict: "nonexistent", reason: "house_number_out_of_range", street: name, postcode: null });
  }
  for (let i = 0; i < perCategory; i++) {
    const words = 1 + pick(2);
    let invented = "";
    for (let w = 0; w < words; w++) {
      let word = "";
      for (let k = 0; k < 3 + pick(2); k++) word += SYLLABLES[pick(SYLLABLES.length)];
      invented += ` ${word[0]!.toUpperCase()}${word.slice(1)}`;
    }
    const postcode = postcodes[pick(postcodes.length)]!;
    out.push({ category: "invented", input: { line: `${1 + pick(120)} ${TYPES[pick(TYPES.length)]} des${invented}, ${postcode} ${city}` }, verdict: "nonexistent", reason: "street_not_found", street: null, postcode: null });
  }
  for (let i = 0; i < perCategory; i++) {
    // Plausible but absent: the type and first words of one real street with the last word of another ("Rue de la
    // Roquette" + "Rue Lecourbe" → "Rue de la Lecourbe"), absent from the whole index. The honest answer is
    // street_not_found; a "corrected" answer here is a false correction.
    let c: EvalCase | null = null;
    while (c === null) {
      const a = randomRow();
      const b = randomRow();
      const aWords = index.streetName(a.street).split(" ");
      const bWords = index.streetName(b.street).split(" ");
      if (aWords.length < 3 || bWords.length < 2) continue;
      const chimera = [...aWords.slice(0, -1), bWords.at(-1)!].join(" ");
      const ids: number[] = [];
      index.byName(asciiBytesOf(streetKey(chimera).name), ids);
      if (ids.length > 0) continue;
      const postcode = pc(a.row);
      c = { category: "chimera", input: { line: `${ad.adNumber[a.row]} ${chimera}, ${postcode} ${city}` }, verdict: "nonexistent", reason: "street_not_found", street: null, postcode: null };
    }
    out.push(c);
  }
  return out;
}

function asciiBytesOf(text: string): Uint8Array {
  return Uint8Array.from(text, (ch) => ch.charCodeAt(0) & 0x7f);
}
