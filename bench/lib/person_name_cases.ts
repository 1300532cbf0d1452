// address_accuracy's person_name category: streets named after someone, written as people shorten them, with the
// title and given names left out ("Rue Mouchotte" for Rue du Commandant René Mouchotte) or the title alone left out
// ("Rue René Mouchotte"). Only lines with one right answer are drawn: no street of the index carries the short name
// itself, and no other street of the same type in the commune shortens to it. The chimera category is the other side
// of the rule: made-up names that must stay street_not_found.
import type { BanIndex } from "../../src/address/index/ban_index.ts";
import { leavesOut } from "../../src/address/match/left_out_words.ts";
import { asciiBytes } from "../../src/address/index/format.ts";
import { streetKey } from "../../src/address/normalize/match_key.ts";
import { isTitle, isTitleOrGivenName } from "../../src/address/normalize/person_names.ts";
import { isStreetType } from "../../src/address/normalize/street_types.ts";
import { seededRandom } from "../../test/helpers/seeded_random.ts";
import type { EvalCase } from "./eval_set.ts";

interface Shortened {
  street: number;
  /** The line's street as written: the type and the kept words in the display form of the name. */
  written: string;
  /** The match-key words of the written name. */
  words: string[];
}

/** The ways a street's name shortens: without titles and given names, and (when it has both) without the titles. */
function shortenings(index: BanIndex, street: number): Shortened[] {
  const display = index.streetName(street).split(" ");
  const key = streetKey(index.streetName(street));
  const words = key.nameTokens;
  const last = words.at(-1);
  if (key.type === null || !isStreetType(display[0]!) || key.type.includes(" ") || last === undefined) return [];
  if (words.length < 2 || isTitleOrGivenName(last) || !words.slice(0, -1).every(isTitleOrGivenName)) return [];
  const lastShown = display.at(-1)!;
  if (streetKey(lastShown).nameTokens.join(" ") !== last) return [];
  const out: Shortened[] = [{ street, written: `${display[0]} ${lastShown}`, words: [last] }];
  const given = words.filter((w, i) => i < words.length - 1 && !isTitle(w));
  if (given.length > 0 && given.length < words.length - 1) {
    // The given names as displayed: the display words whose key is one of them, in order.
    const shown = display.slice(1, -1).filter((w) => given.includes(streetKey(w).nameTokens.join(" ")));
    if (shown.length === given.length)
      out.push({ street, written: `${display[0]} ${[...shown, lastShown].join(" ")}`, words: [...given, last] });
  }
  return out;
}

/** Whether the shortened name points at its street alone: no street carries it as its own key in the index, and no
 *  other street of the commune with the same type shortens to it. */
function unambiguous(index: BanIndex, s: Shortened): boolean {
  const type = streetKey(index.streetName(s.street)).type!;
  const ids: number[] = [];
  index.byKey(asciiBytes(`${type} ${s.words.join(" ")}`), ids);
  if (ids.length > 0) return false;
  const commune = index.st.stCommune[s.street]!;
  return index.byLastWord(s.words.at(-1)!).every((other) => {
    if (other === s.street || index.st.stCommune[other] !== commune) return true;
    const key = streetKey(index.streetName(other));
    return key.type !== type || !leavesOut(s.words, key.nameTokens);
  });
}

export function personNameCases(index: BanIndex, options: { seed: number; perCategory: number }): EvalCase[] {
  const { seed, perCategory } = options;
  const random = seededRandom(seed + 21);
  const pick = (n: number) => Math.floor(random() * n);
  const { st, ad, header } = index;
  const candidates: Shortened[] = [];
  for (let s = 0; s < header.streetCount; s++) {
    for (const short of shortenings(index, s)) if (unambiguous(index, short)) candidates.push(short);
  }
  const out: EvalCase[] = [];
  for (let i = 0; i < perCategory && candidates.length > 0; i++) {
    const short = candidates[pick(candidates.length)]!;
    const start = st.stAddrStart[short.street]!;
    const row = start + pick(st.stAddrCount[short.street]!);
    const postcode = header.postcodes[ad.adPostcode[row]!]!;
    const number = ad.adNumber[row]! > 0 ? `${ad.adNumber[row]} ` : "";
    out.push({
      category: "person_name",
      input: { line: `${number}${short.written}, ${postcode} Paris` },
      verdict: number === "" ? "incomplete" : "corrected",
      reason: "street_corrected",
      street: index.streetName(short.street),
      postcode,
    });
  }
  return out;
}
