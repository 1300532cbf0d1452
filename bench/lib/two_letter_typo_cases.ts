// address_accuracy's typo_two_letter category: street names written with two letters wrong, the slips people make and
// addok forgives: two letters swapped, a letter doubled or a double undone, a letter dropped, a spelling that sounds
// the same ("ph" for "f", "o" for "eau", "k" for "qu"), each with a second slip elsewhere when it alone is one edit.
// Every line is two edits from the street it was written from (on the match keys' names), and its expected answer is
// decided from the streets of the commune alone, never from the matcher:
// - one street clearly closest (every other name of the commune at least one edit further, another type counting as
//   one edit, a name that sounds the same as written counting as one): that street, `street_corrected`;
// - another street as close that has the house number too: `street_not_found`, since either answer would be a guess.
// Two slips land in one word only when it has six letters or more: "Gdjn" for Godin is another word.
// Lines where another street is closer than the one written from (the slips spelt someone else's street), or spell a
// street of the index exactly, are not drawn: no answer would be right. Nor are lines one slip from a street of
// another arrondissement that has the house number, a reading as plausible as the two slips.
import type { BanIndex } from "../../src/address/index/ban_index.ts";
import { streetKey } from "../../src/address/normalize/match_key.ts";
import { phoneticKey } from "../../src/address/normalize/phonetic.ts";
import { isStreetType } from "../../src/address/normalize/street_types.ts";
import { stringDistance } from "../../src/text/edit_distance.ts";
import { seededRandom } from "../../test/helpers/seeded_random.ts";
import type { EvalCase } from "./eval_set.ts";

/** Spellings that sound alike in French, as people write a name they heard: [written, heard as]. Applied once, at
 *  one place of one word. */
const SOUNDS_ALIKE: ReadonlyArray<readonly [RegExp, string]> = [
  [/ph/, "f"],
  [/(?<=[aeiou])f(?=[aeiou])/, "ph"],
  [/qu/, "k"],
  [/c(?=[aou])/, "k"],
  [/k/, "c"],
  [/(?<=[aeiouy])s(?=[aeiouy])/, "ss"],
  [/(?<=[aeiouy])ss(?=[aeiouy])/, "s"],
  [/eau/, "o"],
  [/au/, "o"],
  [/ai/, "é"],
  [/é/, "ai"],
  [/è/, "ai"],
  [/ei/, "ai"],
  [/y/, "i"],
  [/th/, "t"],
  [/gn/, "ni"],
  [/(?<=[a-z])an/, "en"],
  [/(?<=[a-z])en(?![aeiou])/, "an"],
  [/ain/, "in"],
  [/(?<=[a-z])in(?![aeiou])/, "ain"],
  [/(?<=[aeiou])z/, "s"],
  [/ill/, "y"],
  [/ç/, "ss"],
  [/c(?=[ei])/, "s"],
  [/ck/, "k"],
  [/(?<=[aeiou])[tdsx]$/, ""],
  [/gu(?=[ei])/, "g"],
  [/o(?=[^aeiouy]|$)/, "au"],
];

/** AZERTY neighbours, for a slip of the finger. */
const NEIGHBOURS: Readonly<Record<string, string>> = {
  a: "zqs",
  z: "aeqs",
  e: "zrsd",
  r: "etdf",
  t: "ryfg",
  y: "tugh",
  u: "yihj",
  i: "uojk",
  o: "iplk",
  p: "olm",
  q: "azsw",
  s: "qzedx",
  d: "serfx",
  f: "drtgc",
  g: "ftyhv",
  h: "gyujb",
  j: "huikn",
  k: "jiol",
  l: "kopm",
  m: "lp",
  w: "qsx",
  x: "wsdc",
  c: "xdfv",
  v: "cfgb",
  b: "vghn",
  n: "bhj",
};
const VOWELS = /[aeiouyàâäéèêëîïôöùûü]/;

/** One name slipped by one of the moves above, at a random place of a word of four letters or more (never its first
 *  letter, which people rarely miss), or null when the move finds no place. */
type Move = (word: string, pick: (n: number) => number) => string | null;

const swapTwo: Move = (w, pick) => {
  const at = 1 + pick(w.length - 2);
  return w[at] === w[at + 1] ? null : w.slice(0, at) + w[at + 1] + w[at] + w.slice(at + 2);
};
const doubleOne: Move = (w, pick) => {
  const at = 1 + pick(w.length - 1);
  if (VOWELS.test(w[at]!) || w[at] === w[at - 1] || w[at] === w[at + 1]) return null;
  return w.slice(0, at) + w[at] + w.slice(at);
};
const undoubleOne: Move = (w) => {
  const m = /(?<=.)([a-z])\1/.exec(w);
  return m === null ? null : w.slice(0, m.index) + w.slice(m.index + 1);
};
const dropOne: Move = (w, pick) => {
  const at = 1 + pick(w.length - 1);
  return w.slice(0, at) + w.slice(at + 1);
};
const soundAlike: Move = (w, pick) => {
  const [re, to] = SOUNDS_ALIKE[pick(SOUNDS_ALIKE.length)]!;
  // Not on the first letter: a name heard is still written with its first letter.
  const m = re.exec(w.slice(1));
  return m === null ? null : w.slice(0, 1 + m.index) + to + w.slice(1 + m.index + m[0].length);
};
const fingerSlip: Move = (w, pick) => {
  const at = 1 + pick(w.length - 1);
  const near = NEIGHBOURS[w[at]!];
  return near === undefined ? null : w.slice(0, at) + near[pick(near.length)] + w.slice(at + 1);
};
const TWO_LETTER_MOVES: readonly Move[] = [swapTwo, doubleOne, undoubleOne, dropOne, soundAlike];
const SECOND_MOVES: readonly Move[] = [swapTwo, doubleOne, dropOne, fingerSlip, soundAlike];

interface Named {
  street: number;
  type: string | null;
  name: string;
  sound: string;
}

export function twoLetterTypoCases(index: BanIndex, options: { seed: number; perCategory: number }): EvalCase[] {
  const { seed, perCategory } = options;
  const random = seededRandom(seed + 16);
  const pick = (n: number) => Math.floor(random() * n);
  const { st, ad, header } = index;
  const pc = (row: number) => header.postcodes[ad.adPostcode[row]!]!;
  const plain = new Set(["", "b", "t", "q", "bis", "ter", "a", "c", "d"]);

  const named: Named[] = [];
  for (let s = 0; s < header.streetCount; s++) {
    const key = streetKey(index.streetName(s));
    named.push({ street: s, type: key.type, name: key.name, sound: phoneticKey(key.nameTokens) });
  }
  const byCommune = new Map<number, Named[]>();
  for (const n of named) {
    const c = st.stCommune[n.street]!;
    let list = byCommune.get(c);
    if (list === undefined) byCommune.set(c, (list = []));
    list.push(n);
  }
  const hasNumber = (s: number, number: number) => {
    const start = st.stAddrStart[s]!;
    for (let r = start; r < start + st.stAddrCount[s]!; r++) if (ad.adNumber[r] === number) return true;
    return false;
  };

  const out: EvalCase[] = [];
  for (let tries = 0; out.length < perCategory && tries < perCategory * 200; tries++) {
    const s = pick(header.streetCount);
    const count = st.stAddrCount[s]!;
    if (count === 0) continue;
    const row = st.stAddrStart[s]! + pick(count);
    const name = index.streetName(s);
    const rep = header.suffixes[ad.adSuffix[row]!]!;
    if (ad.adNumber[row]! === 0 || !plain.has(rep)) continue;
    if (!/^[A-Za-zÀ-ÿ]/.test(name) || name.includes("/") || !isStreetType(name.split(" ")[0]!)) continue;
    const truth = named[s]!;
    if (truth.type === null || truth.name.length < 5) continue;

    // Slips land in the words of the name after the type (four letters or more). A word is known by its rank among
    // the name's words, which no slip changes (none touches a word's first letter).
    const space = name.indexOf(" ");
    const wordsOf = (text: string) =>
      [...text.slice(space + 1).matchAll(/[A-Za-zÀ-ÿ]+/g)].map((m) => ({ at: space + 1 + m.index, word: m[0] }));
    const eligible = wordsOf(name)
      .map((w, rank) => (w.word.length >= 4 ? rank : -1))
      .filter((rank) => rank >= 0);
    if (eligible.length === 0) continue;
    const slip = (text: string, move: Move, exceptRank?: number): { text: string; rank: number } | null => {
      const choices = eligible.length > 1 ? eligible.filter((r) => r !== exceptRank) : eligible;
      const rank = choices[pick(choices.length)]!;
      const { at, word } = wordsOf(text)[rank]!;
      const slipped = move(word, pick);
      return slipped === null ? null : { text: text.slice(0, at) + slipped + text.slice(at + word.length), rank };
    };
    const first = slip(name, TWO_LETTER_MOVES[pick(TWO_LETTER_MOVES.length)]!);
    if (first === null) continue;
    let typo = first.text;
    if (stringDistance(streetKey(typo).name, truth.name, 3) < 2) {
      const second = slip(typo, SECOND_MOVES[pick(SECOND_MOVES.length)]!, first.rank);
      if (second === null) continue;
      typo = second.text;
    }
    const typed = streetKey(typo);
    if (typed.type !== truth.type || stringDistance(typed.name, truth.name, 3) !== 2) continue;
    // Two slips in one word only when it is long enough to stay recognisable (a third of its letters at most): "Gdjn"
    // for Godin is another word, not a slip.
    const typedWords = typed.nameTokens;
    const recognisable = (name: string) => {
      const words = name.split(" ");
      return (
        words.length !== typedWords.length ||
        typedWords.every((w, i) => stringDistance(w, words[i]!, 3) <= Math.max(1, Math.floor(words[i]!.length / 3)))
      );
    };
    if (!recognisable(truth.name)) continue;
    const typedSound = phoneticKey(typed.nameTokens);

    // How far a street of the index is from the line: name edits, one more for another type, one at most when it
    // sounds the same; a name the line could not be a slip of (a word with more than a third of its letters
    // changed: "Cara" for Curé) is not near.
    const distance = (n: Named) => {
      const spelt = recognisable(n.name) ? stringDistance(typed.name, n.name, 3) : 3;
      const heard = n.sound.length >= 4 && n.sound === typedSound ? 1 : 3;
      return Math.min(spelt, heard) + (n.type === truth.type ? 0 : 1);
    };
    const mine = distance(truth);
    // A street of the index spelt so is that street.
    if (named.some((n) => n.name === typed.name)) continue;
    // Another street as near decides nothing unless it has the house number too: the number breaks the tie.
    const commune = st.stCommune[s]!;
    const number = ad.adNumber[row]!;
    let nearest = Infinity;
    for (const n of byCommune.get(commune)!) {
      if (n.name === truth.name && n.type === truth.type) continue;
      const d = distance(n);
      if (d < mine || hasNumber(n.street, number)) nearest = Math.min(nearest, d);
    }
    if (nearest < mine) continue;
    // One slip from a street of another arrondissement that has the number: another reading, as plausible.
    if (
      named.some(
        (n) =>
          st.stCommune[n.street] !== commune &&
          n.type === truth.type &&
          Math.abs(n.name.length - typed.name.length) <= 1 &&
          stringDistance(typed.name, n.name, 1) <= 1 &&
          hasNumber(n.street, number),
      )
    )
      continue;
    const line = `${number}${rep ? ` ${rep}` : ""} ${typo}, ${pc(row)} Paris`;
    out.push(
      nearest > mine
        ? {
            category: "typo_two_letter",
            input: { line },
            verdict: "corrected",
            reason: "street_corrected",
            street: name,
            postcode: pc(row),
          }
        : {
            category: "typo_two_letter",
            input: { line },
            verdict: "nonexistent",
            reason: "street_not_found",
            street: null,
            postcode: null,
            writtenFrom: name,
          },
    );
  }
  return out;
}
