// A seeded evaluation set drawn from an index (bench/address_accuracy.ts, bench/address_match.ts; seededRandom() for
// bench/address_scale.ts): real addresses written as users write them, with the answer expected for each category.
// Deterministic for a seed.
import type { BanIndex } from "../../src/address/index/ban_index.ts";
import { streetKey } from "../../src/address/normalize/match_key.ts";
import { isStreetType } from "../../src/address/normalize/street_types.ts";
import type { ReferenceTables } from "../../src/address/reference/reference_format.ts";
import type { Reference } from "../../src/address/reference/reference.ts";
import { stringDistance } from "../../src/text/edit_distance.ts";
import type { AddressInput, AddressReason, AddressVerdict } from "../../src/address/types.ts";

export type EvalCategory =
  | "exact"
  | "typo"
  | "abbreviation"
  | "wrong_postcode"
  | "missing_number"
  | "out_of_range"
  | "invented"
  | "chimera"
  | "typo2"
  | "messy"
  | "mismatch"
  | "uncovered"
  | "suffix"
  | "name_number"
  | "person_name"
  | "typo_two_letter";

export interface EvalCase {
  category: EvalCategory;
  input: AddressInput;
  verdict: AddressVerdict;
  /** A reason the answer must carry (none for exact/abbreviation). */
  reason: AddressReason | null;
  /** The street the answer must name (display form), null when no street is expected. */
  street: string | null;
  postcode: string | null;
  /** The house-number suffix the answer must print ("bis", "C", null), when the category checks it. */
  suffix?: string | null;
  /** The street the line was written from, when the expected answer names none (two streets as near a slip: either
   *  would be a guess). An answer naming another street than this one, or than `street`, is a wrong street. */
  writtenFrom?: string;
}

export { seededRandom } from "../../test/helpers/seeded_random.ts";
import { personNameCases } from "./person_name_cases.ts";
import { twoLetterTypoCases } from "./two_letter_typo_cases.ts";
import { seededRandom } from "../../test/helpers/seeded_random.ts";

const ABBREVIATIONS: ReadonlyArray<readonly [RegExp, string]> = [
  [/^Boulevard /, "Bd "],
  [/^Avenue /, "Av "],
  [/^Rue /, "R "],
  [/^Place /, "Pl "],
  [/^Impasse /, "Imp "],
  [/^Passage /, "Pass "],
  [/^Square /, "Sq "],
  [/^Faubourg /, "Fbg "],
  [/^Allée /, "All "],
  [/^Quai /, "Qu "],
  [/ Saint-/, " St-"],
  [/ Sainte-/, " Ste-"],
  [/ du Général /, " du Gal "],
  [/ du Maréchal /, " du Mal "],
  [/ du Docteur /, " du Dr "],
];
const LETTERS = "abcdefghijklmnopqrstuvwxyz";
const SYLLABLES = [
  "ka",
  "zo",
  "bru",
  "vex",
  "tal",
  "quin",
  "dor",
  "pli",
  "gum",
  "rax",
  "wel",
  "fro",
  "jib",
  "nup",
  "sly",
];
const TYPES = ["Rue", "Avenue", "Boulevard", "Impasse", "Place", "Allée"];

interface Row {
  street: number;
  row: number;
}

export interface EvalSetOptions {
  seed?: number;
  perCategory?: number;
  /** With the nationwide reference (and the tables it was packed from), the nationwide categories are added: two-edit
   *  typos, messy lines, postcode/city mismatches, consistent pairs outside coverage, suffixes glued or spaced,
   *  numbers inside names written in digits, names of people shortened (person_name_cases.ts) and two-letter slips
   *  (two_letter_typo_cases.ts). */
  nationwide?: { reference: Reference; tables: ReferenceTables };
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
    out.push({
      category: "exact",
      input: { line: `${numberText(row)} ${name}, ${pc(row)} ${city}` },
      verdict: "deliverable",
      reason: null,
      street: name,
      postcode: pc(row),
    });
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
        else
          typo =
            /[a-z]/.test(name[pos + 1] ?? "") && name[pos + 1] !== name[pos]
              ? name.slice(0, pos) + name[pos + 1] + name[pos] + name.slice(pos + 2)
              : name.slice(0, pos) + name.slice(pos + 1);
        // A slip inside an article ("Rue d la Reynie") changes nothing once normalised: that is no typo to correct.
        if (streetKey(typo).key === streetKey(name).key) return null;
        return {
          category: "typo",
          input: { line: `${numberText(row)} ${typo}, ${pc(row)} ${city}` },
          verdict: "corrected",
          reason: "street_corrected",
          street: name,
          postcode: pc(row),
        };
      }),
    );
  }
  for (let i = 0; i < perCategory; i++) {
    out.push(
      draw(({ row, name }) => {
        let short = name;
        for (const [re, to] of ABBREVIATIONS) short = short.replace(re, to);
        if (short === name) return null;
        return {
          category: "abbreviation",
          input: { line: `${numberText(row)} ${short.toLowerCase()} ${pc(row)} ${city.toUpperCase()}` },
          verdict: "deliverable",
          reason: null,
          street: name,
          postcode: pc(row),
        };
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
        if (
          wrong === pc(row) ||
          wrong === "75116" ||
          pc(row) === "75116" ||
          ids.some((s) => index.streetPostcodes(s).has(wrong))
        )
          return null;
        return {
          category: "wrong_postcode",
          input: { line: `${numberText(row)} ${name}, ${wrong} ${city}` },
          verdict: "corrected",
          reason: "postcode_corrected",
          street: name,
          postcode: pc(row),
        };
      }),
    );
  }
  for (let i = 0; i < perCategory; i++) {
    const { street, row } = randomRow();
    const name = index.streetName(street);
    out.push({
      category: "missing_number",
      input: { street: name, postcode: pc(row), city },
      verdict: "incomplete",
      reason: "missing_house_number",
      street: name,
      postcode: null,
    });
  }
  for (let i = 0; i < perCategory; i++) {
    const { street, row } = randomRow();
    const name = index.streetName(street);
    // Beyond the last number of every street of that name in the index (the number must exist nowhere).
    const same: number[] = [];
    index.byKey(index.blob.subarray(st.stKeyOff[street]!, st.stKeyOff[street]! + st.stKeyLen[street]!), same);
    const last = Math.max(...same.map((s) => ad.adNumber[st.stAddrStart[s]! + st.stAddrCount[s]! - 1]!));
    const beyond = last + 20 + pick(500);
    out.push({
      category: "out_of_range",
      input: { line: `${beyond} ${name} ${pc(row)} ${city}` },
      verdict: "nonexistent",
      reason: "house_number_out_of_range",
      street: name,
      postcode: null,
    });
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
    out.push({
      category: "invented",
      input: { line: `${1 + pick(120)} ${TYPES[pick(TYPES.length)]} des${invented}, ${postcode} ${city}` },
      verdict: "nonexistent",
      reason: "street_not_found",
      street: null,
      postcode: null,
    });
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
      c = {
        category: "chimera",
        input: { line: `${ad.adNumber[a.row]} ${chimera}, ${postcode} ${city}` },
        verdict: "nonexistent",
        reason: "street_not_found",
        street: null,
        postcode: null,
      };
    }
    out.push(c);
  }
  if (options.nationwide) {
    out.push(...nationwideCases(index, { ...options.nationwide, seed, perCategory }));
    out.push(...typedNumberCases(index, { seed, perCategory }));
    out.push(...personNameCases(index, { seed, perCategory }));
    out.push(...twoLetterTypoCases(index, { seed, perCategory }));
  }
  return out;
}

function asciiBytesOf(text: string): Uint8Array {
  return Uint8Array.from(text, (ch) => ch.charCodeAt(0) & 0x7f);
}

/** What a messy line does to a clean one (noise around the address, and word order); null when it does not apply to this row. */
type Noise = (a: { num: string; rep: string; name: string; pc: string }) => string | null;

const NOISES: ReadonlyArray<readonly [string, Noise]> = [
  ["postcode glued to the city", (a) => `${a.num} ${a.name} ${a.pc}Paris`],
  // Not after a name that ends in digits ("Rue du Huit Mai 1945" + 75010 is nine digits no reader can split).
  ["postcode glued to the street", (a) => (/\d$/.test(a.name) ? null : `${a.num} ${a.name}${a.pc} Paris`)],
  [
    "abbreviations inside the name",
    (a) => {
      const short = a.name
        .replace(/\bSaint-/g, "st ")
        .replace(/\bSainte-/g, "ste ")
        .replace(/\bFaubourg\b/g, "fbg")
        .replace(/\bGénéral\b/g, "gal")
        .replace(/\bMaréchal\b/g, "mal")
        .replace(/\bPrésident\b/g, "pdt")
        .replace(/\bDocteur\b/g, "dr");
      return short === a.name ? null : `${a.num} ${short.toLowerCase()} ${a.pc} paris`;
    },
  ],
  ["suffix glued", (a) => (a.rep === "" ? null : `${a.num}${a.rep} ${a.name}, ${a.pc} Paris`)],
  [
    "suffix letter in capitals",
    (a) => (a.rep.length !== 1 ? null : `${a.num}${a.rep.toUpperCase()} ${a.name} ${a.pc} Paris`),
  ],
  ["number after the street", (a) => (a.rep !== "" ? null : `${a.name} ${a.num}, ${a.pc} Paris`)],
  ["building and floor", (a) => `${a.num} ${a.name}, Bât. B, 3e étage, ${a.pc} Paris`],
  ["chez", (a) => `Chez Mme Martin, ${a.num} ${a.name}, ${a.pc} Paris`],
  ["apartment", (a) => `${a.num} ${a.name} appartement 12, ${a.pc} Paris`],
  ["post-office box", (a) => `${a.num} ${a.name}, BP 1234, ${a.pc} Paris`],
  ["semicolons", (a) => `${a.num} ${a.name}; ${a.pc}; Paris`],
  ["city before the postcode", (a) => `${a.num} ${a.name} Paris ${a.pc}`],
  ["locality first", (a) => `Paris ${a.pc} ${a.num} ${a.name}`],
  ["postcode spaced", (a) => `${a.num} ${a.name} ${a.pc.slice(0, 2)} ${a.pc.slice(2)} Paris`],
  ["postcode spaced after a comma", (a) => `${a.num} ${a.name}, ${a.pc.slice(0, 2)} ${a.pc.slice(2)} Paris`],
  ["misspelt Rue", (a) => (a.name.startsWith("Rue ") ? `${a.num} Ruee ${a.name.slice(4)}, ${a.pc} Paris` : null)],
  ["transposed Rue", (a) => (a.name.startsWith("Rue ") ? `${a.num} reu ${a.name.slice(4)} ${a.pc} paris` : null)],
  [
    "capitals without accents",
    (a) =>
      `${a.num} ${a.name
        .normalize("NFD")
        .replace(/[\u0300-\u036f]/g, "")
        .toUpperCase()} ${a.pc} PARIS`,
  ],
  ["no comma, lower case", (a) => `${a.num} ${a.name.toLowerCase()} ${a.pc} paris`],
  ["postcode first, street last", (a) => `${a.pc} Paris, ${a.num} ${a.name}`],
  ["postcode first, number after the street", (a) => (a.rep !== "" ? null : `${a.pc} Paris, ${a.name} ${a.num}`)],
  [
    "city and postcode first, number after the street",
    (a) => (a.rep !== "" ? null : `Paris ${a.pc}, ${a.name} ${a.num}`),
  ],
  ["city first, postcode last", (a) => `PARIS ${a.num} ${a.name.toUpperCase()} ${a.pc}`],
  ["city first in its segment, postcode last", (a) => `Paris, ${a.num} ${a.name}, ${a.pc}`],
  ["country letter before the postcode", (a) => `${a.num} ${a.name} F-${a.pc} Paris`],
  ["remark in brackets", (a) => `${a.num} ${a.name} (bâtiment B), ${a.pc} Paris`],
  ["phone number pasted", (a) => `${a.num} ${a.name}, ${a.pc} Paris tél : 06 12 34 56 78`],
  ["door code", (a) => `${a.num} ${a.name}, ${a.pc} Paris - digicode 12A4`],
  [
    "article glued to the type",
    (a) => {
      const glued = a.name.replace(
        /^(Rue|Avenue|Boulevard|Place|Impasse|Passage|Square|Villa) (de la|du|des|de) /,
        "$1$2 ",
      );
      return glued === a.name ? null : `${a.num} ${glued.toLowerCase()} ${a.pc} paris`;
    },
  ],
];

const ELSEWHERE = ["13", "69"];

/** The nationwide categories (its own random stream, so that the older categories stay what they were). */
function nationwideCases(
  index: BanIndex,
  options: { reference: Reference; tables: ReferenceTables; seed: number; perCategory: number },
): EvalCase[] {
  const { reference, tables, seed, perCategory } = options;
  const random = seededRandom(seed + 14);
  const pick = (n: number) => Math.floor(random() * n);
  const { st, ad, header } = index;
  const out: EvalCase[] = [];
  const plain = new Set(["", "b", "t", "q", "bis", "ter", "a", "c", "d"]);
  const randomRow = (): { street: number; row: number; name: string } => {
    for (;;) {
      const s = pick(header.streetCount);
      const count = st.stAddrCount[s]!;
      if (count === 0) continue;
      const row = st.stAddrStart[s]! + pick(count);
      const name = index.streetName(s);
      if (ad.adNumber[row]! === 0 || !plain.has(header.suffixes[ad.adSuffix[row]!]!)) continue;
      if (!/^[A-Za-zÀ-ÿ]/.test(name) || name.includes("/")) continue;
      return { street: s, row, name };
    }
  };
  const pc = (row: number) => header.postcodes[ad.adPostcode[row]!]!;
  const namesOfCommune = new Map<number, string[]>();
  const communeNames = (c: number) => {
    let names = namesOfCommune.get(c);
    if (names === undefined) {
      const info = header.communes[c]!;
      names = [];
      for (let s = info.firstStreet; s < info.firstStreet + info.streetCount; s++)
        names.push(streetKey(index.streetName(s)).name);
      namesOfCommune.set(c, names);
    }
    return names;
  };
  const LETTERS = "abcdefghijklmnopqrstuvwxyz";

  // Two slips in a name of 5+ letters (words of 4+ letters only, articles untouched), kept only when the true street
  // is still the unique nearest name of its commune: otherwise no answer could be right.
  for (let i = 0; i < perCategory; ) {
    const { street, row, name } = randomRow();
    const space = name.indexOf(" ");
    const body = name.slice(space + 1);
    if (body.replace(/[^A-Za-z]/g, "").length < 5) continue;
    // Spread like typos (the matcher's rule for several edits): two words when the name has two of 4+ letters, or
    // one word of 6+ letters.
    const words = [...body.matchAll(/[a-z]{4,}/g)].map((m) => ({ at: space + 1 + m.index, len: m[0].length }));
    const long = words.filter((w) => w.len >= 6);
    let targets: { at: number; len: number }[];
    if (words.length >= 2 && pick(2) === 0) {
      const a = pick(words.length);
      const b = (a + 1 + pick(words.length - 1)) % words.length;
      targets = [words[Math.max(a, b)]!, words[Math.min(a, b)]!];
    } else if (long.length > 0) {
      const w = long[pick(long.length)]!;
      targets = [w, w];
    } else continue;
    let typo = name;
    for (const [e, w] of targets.entries()) {
      // The second slip in the same word lands before the first, so positions stay valid.
      const pos = w.at + (e === 1 && targets[0] === w ? pick(Math.max(1, w.len - 2)) : pick(w.len));
      const letter = LETTERS[pick(26)]!;
      const kind = pick(4);
      if (kind === 0) typo = typo.slice(0, pos) + (letter === typo[pos] ? "x" : letter) + typo.slice(pos + 1);
      else if (kind === 1) typo = typo.slice(0, pos) + typo.slice(pos + 1);
      else if (kind === 2) typo = typo.slice(0, pos) + letter + typo.slice(pos);
      else if (/[a-z]/.test(typo[pos + 1] ?? "") && typo[pos + 1] !== typo[pos])
        typo = typo.slice(0, pos) + typo[pos + 1] + typo[pos] + typo.slice(pos + 2);
      else typo = typo.slice(0, pos) + typo.slice(pos + 1);
    }
    const truth = streetKey(name).name;
    const typed = streetKey(typo).name;
    if (stringDistance(typed, truth, 3) !== 2) continue;
    // A typo that spells another real street (anywhere in the index) is that street, not a typo.
    const same: number[] = [];
    index.byName(
      Uint8Array.from(typed, (ch) => ch.charCodeAt(0) & 0x7f),
      same,
    );
    if (same.length > 0) continue;
    const others = communeNames(st.stCommune[street]!).filter((n) => n !== truth);
    if (others.some((n) => stringDistance(typed, n, 2) <= 2)) continue;
    const rep = header.suffixes[ad.adSuffix[row]!]!;
    out.push({
      category: "typo2",
      input: { line: `${ad.adNumber[row]}${rep ? ` ${rep}` : ""} ${typo}, ${pc(row)} Paris` },
      verdict: "corrected",
      reason: "street_corrected",
      street: name,
      postcode: pc(row),
    });
    i++;
  }

  // Messy lines: each noise in turn, over real addresses; the answer is the clean one.
  for (let i = 0; i < perCategory; ) {
    const { row, name } = randomRow();
    const [, noise] = NOISES[i % NOISES.length]!;
    const line = noise({ num: String(ad.adNumber[row]), rep: header.suffixes[ad.adSuffix[row]!]!, name, pc: pc(row) });
    if (line === null) continue;
    out.push({
      category: "messy",
      input: { line },
      verdict: "deliverable",
      reason: null,
      street: name,
      postcode: pc(row),
    });
    i++;
  }

  // Nationwide pairs from the reference tables.
  const communes = tables.communes
    .split("\n")
    .map((l) => l.split("|"))
    .filter(([code, , parent]) => parent === "" && !/^(75|13055|69123)/.test(code!));
  const pairs = tables.pairs.split("\n").map((l) => l.split("|"));
  const names = new Map(communes.map((c) => [c[0]!, c[1]!]));
  const nameOf = (code: string) => names.get(code);
  for (let i = 0; i < perCategory; i++) {
    const kind = i % 4;
    if (kind <= 1) {
      // A commune and a postcode of another département: nonexistent, whatever the street.
      for (;;) {
        const [code, nom] = communes[pick(communes.length)]!;
        const [postcode] = pairs[pick(pairs.length)]!;
        if (postcode!.slice(0, 2) === code!.slice(0, 2) || /^(75|13|69)/.test(postcode!)) continue;
        const named = reference.citiesNamed(nom!).flatMap((m) => m.communes);
        if (named.length === 0 || reference.communesOfPostcode(postcode!).some((c) => named.includes(c))) continue;
        // A namesake in the postcode's département may take it as a slip of its own postcode ("84460 Gargas" for
        // Gargas, 84400): postcode_corrected by item 5's rule, no mismatch.
        if (named.some((c) => c.slice(0, 2) === postcode!.slice(0, 2))) continue;
        // Nor a name one letter from a commune of the postcode ("25190 Fleury" for Fleurey): city_corrected.
        if (reference.closestCity(nom!, reference.communesOfPostcode(postcode!), { maxEdits: 1 }) !== null) continue;
        out.push({
          category: "mismatch",
          input: { line: `${1 + pick(40)} ${kind === 0 ? "Rue de la Gare" : "Grande Rue"}, ${postcode} ${nom}` },
          verdict: "nonexistent",
          reason: "postcode_city_mismatch",
          street: null,
          postcode: null,
        });
        break;
      }
    } else if (kind === 2) {
      // "13001 Paris": a Marseille or Lyon arrondissement code with a Paris street; the street settles it.
      const { row, name } = randomRow();
      const dept = ELSEWHERE[pick(2)]!;
      const wrong = `${dept}0${String(1 + pick(9)).padStart(2, "0")}`;
      out.push({
        category: "mismatch",
        input: { line: `${ad.adNumber[row]} ${name}, ${wrong} Paris` },
        verdict: "corrected",
        reason: "postcode_corrected",
        street: name,
        postcode: pc(row),
      });
    } else {
      // "75007 Marseille": the right Paris postcode with another city; the street settles it.
      const { row, name } = randomRow();
      out.push({
        category: "mismatch",
        input: { line: `${ad.adNumber[row]} ${name}, ${pc(row)} ${pick(2) === 0 ? "Marseille" : "Lyon"}` },
        verdict: "corrected",
        reason: "city_corrected",
        street: name,
        postcode: pc(row),
      });
    }
  }
  // Consistent pairs outside the indexed départements: unknown, never a guess.
  for (let i = 0; i < perCategory; ) {
    const [postcode, insee] = pairs[pick(pairs.length)]!;
    const nom = nameOf(insee!);
    if (nom === undefined || postcode!.startsWith("75")) continue;
    out.push({
      category: "uncovered",
      input: { line: `${1 + pick(40)} Rue de la Gare, ${postcode} ${nom}` },
      verdict: "unknown",
      reason: "postcode_not_covered",
      street: null,
      postcode: null,
    });
    i++;
  }
  return out;
}

const ORDINAL_SUFFIXES = new Set(["b", "t", "q", "bis", "ter", "quater", "quinquies", "sexies"]);
const SUFFIX_WORDS: Readonly<Record<string, string>> = { b: "bis", t: "ter", q: "quater" };
const NUMBER_VALUES: Readonly<Record<string, number>> = {
  un: 1,
  deux: 2,
  trois: 3,
  quatre: 4,
  cinq: 5,
  six: 6,
  sept: 7,
  huit: 8,
  neuf: 9,
  dix: 10,
  onze: 11,
  douze: 12,
  treize: 13,
  quatorze: 14,
  quinze: 15,
  seize: 16,
  vingt: 20,
  trente: 30,
  quarante: 40,
  cinquante: 50,
  soixante: 60,
};
const MONTH = /^(?:janvier|février|mars|avril|mai|juin|juillet|août|septembre|octobre|novembre|décembre)$/i;
const ROMAN_AFTER_NAME = /^(.*[a-zà-ÿ]) (II|III|IV|VI|VII|VIII|IX|XI|XII|XIII|XIV|XV|XVI)\b(.*)$/;
const ROMAN: Readonly<Record<string, number>> = {
  II: 2,
  III: 3,
  IV: 4,
  VI: 6,
  VII: 7,
  VIII: 8,
  IX: 9,
  XI: 11,
  XII: 12,
  XIII: 13,
  XIV: 14,
  XV: 15,
  XVI: 16,
};

/** A street name with its number written in digits: "Rue du Quatre Septembre" → "Rue du 4 Septembre", "Place du
 *  Dix-Huit Juin 1940" → "Place du 18 Juin 1940", "Boulevard Henri IV" → "Boulevard Henri 4"; null without one. */
function digitsInName(name: string): string | null {
  const roman = ROMAN_AFTER_NAME.exec(name);
  if (roman) return `${roman[1]} ${ROMAN[roman[2]!]}${roman[3]}`;
  const words = name.split(" ");
  for (let i = 0; i < words.length; i++) {
    const parts = words[i]!.toLowerCase().split("-");
    if (!parts.every((w) => NUMBER_VALUES[w] !== undefined)) continue;
    // Only before a month: "Pont Neuf", "Deux Anges" are names, not numbers.
    if (!MONTH.test(words[i + 1] ?? "")) continue;
    const value = parts.reduce((sum, w) => sum + NUMBER_VALUES[w]!, 0);
    return [...words.slice(0, i), String(value), ...words.slice(i + 1)].join(" ");
  }
  return null;
}

/** Suffix letters and numbers in names: house-number suffixes glued or spaced, in either case ("185C",
 *  "185 c", "39bis", "39 B"), answered with the suffix BAN's rule prints; and streets whose name holds a number
 *  (in words or roman numerals) written with digits. */
function typedNumberCases(index: BanIndex, options: { seed: number; perCategory: number }): EvalCase[] {
  const { seed, perCategory } = options;
  const random = seededRandom(seed + 15);
  const pick = (n: number) => Math.floor(random() * n);
  const { st, ad, header } = index;
  const out: EvalCase[] = [];
  const pc = (row: number) => header.postcodes[ad.adPostcode[row]!]!;
  const repOf = (row: number) => header.suffixes[ad.adSuffix[row]!]!;
  const usable = (s: number) => {
    const name = index.streetName(s);
    return /^[A-Za-zÀ-ÿ]/.test(name) && !name.includes("/") && isStreetType(name.split(" ")[0]!);
  };
  const suffixed: { street: number; row: number }[] = [];
  for (let s = 0; s < header.streetCount; s++) {
    if (!usable(s)) continue;
    const start = st.stAddrStart[s]!;
    for (let r = start; r < start + st.stAddrCount[s]!; r++) {
      if (ad.adNumber[r]! > 0 && /^(?:[a-z]|bis|ter|quater)$/.test(repOf(r))) suffixed.push({ street: s, row: r });
    }
  }
  for (let i = 0; i < perCategory && suffixed.length > 0; i++) {
    const { street, row } = suffixed[pick(suffixed.length)]!;
    const rep = repOf(row);
    let sameNumberOrdinal = true;
    const start = st.stAddrStart[street]!;
    for (let r = start; r < start + st.stAddrCount[street]!; r++) {
      const other = repOf(r);
      if (ad.adNumber[r] === ad.adNumber[row] && other !== "" && !ORDINAL_SUFFIXES.has(other))
        sameNumberOrdinal = false;
    }
    const expected =
      rep.length > 1 ? rep : sameNumberOrdinal && SUFFIX_WORDS[rep] ? SUFFIX_WORDS[rep]! : rep.toUpperCase();
    const letter = rep.length > 1 ? rep : pick(2) === 0 ? rep : rep.toUpperCase();
    const written = pick(2) === 0 ? `${ad.adNumber[row]}${letter}` : `${ad.adNumber[row]} ${letter}`;
    const name = index.streetName(street);
    out.push({
      category: "suffix",
      input: { line: `${written} ${name}, ${pc(row)} Paris` },
      verdict: "deliverable",
      reason: null,
      street: name,
      postcode: pc(row),
      suffix: expected,
    });
  }
  // Streets with a number in their name and at least one plain house number: a line without a house number would
  // read "Pont Alexandre 3" as number 3 of "Pont Alexandre" (word order), which is another question.
  const numbered: { rows: number[]; written: string; street: number }[] = [];
  for (let s = 0; s < header.streetCount; s++) {
    const written = usable(s) ? digitsInName(index.streetName(s)) : null;
    if (written === null) continue;
    const rows: number[] = [];
    const start = st.stAddrStart[s]!;
    for (let r = start; r < start + st.stAddrCount[s]!; r++) if (repOf(r) === "" && ad.adNumber[r]! > 0) rows.push(r);
    if (rows.length > 0) numbered.push({ rows, written, street: s });
  }
  for (let i = 0; i < perCategory && numbered.length > 0; i++) {
    const { rows, written, street } = numbered[pick(numbered.length)]!;
    const row = rows[pick(rows.length)]!;
    out.push({
      category: "name_number",
      input: { line: `${ad.adNumber[row]} ${written}, ${pc(row)} Paris` },
      verdict: "deliverable",
      reason: null,
      street: index.streetName(street),
      postcode: pc(row),
    });
  }
  return out;
}
