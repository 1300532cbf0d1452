// Street lookup among a set of communes: exact match keys through the hash tables, then a bounded fuzzy scan of the
// communes' streets. Costs are named partial scores in half-edits (docs/style.md habit 11); what each slip costs and how
// large a margin a fuzzy answer needs over the next different name are the fuzzy budget (fuzzy_budget.ts).
import { boundedDistance, slipDistance, stringDistance } from "../../text/edit_distance.ts";
import type { BanIndex } from "../index/ban_index.ts";
import { asciiBytes, letterMask } from "../index/format.ts";
import type { StreetKey } from "../normalize/match_key.ts";
import { phoneticKey } from "../normalize/phonetic.ts";
import { isStreetType, NAME_INTRODUCERS } from "../normalize/street_types.ts";
import { STOP_WORDS } from "../normalize/stop_words.ts";
import { tokenize } from "../normalize/tokenize.ts";
import {
  CLEAR_MARGIN,
  DROPPED_WORD_COST,
  DROPPED_WORD_MIN_BUDGET,
  EDIT_COST,
  GUESSED_TYPE_COST,
  maxEdits,
  MIN_PHONETIC_KEY,
  MIN_WORD_EDITS,
  MISSING_TYPE_COST,
  OTHER_TYPE_COST,
  PHONETIC_EDITS,
  SLIP_LEAD,
  STRAY_ARTICLE_EDITS,
  STRAY_ARTICLE_MAX_LENGTH,
  STRETCH_LEAD,
  STRETCH_MIN_LENGTH,
  stretchedEdits,
  TYPE_ALLOWANCE,
  WORD_EDIT_DIVISOR,
} from "./fuzzy_budget.ts";

// One-letter articles (l, d) are left out: every single letter is one edit from them.
const STOP_LIST = [...STOP_WORDS].filter((w) => w.length >= 2);
/** A short word one edit away from an article ("tde", "al", "dwes"): a slip that tokenisation cannot undo. */
function looksLikeStopWord(word: string): boolean {
  if (STOP_WORDS.has(word)) return false;
  return STOP_LIST.some(
    (s) =>
      Math.abs(s.length - word.length) <= STRAY_ARTICLE_EDITS &&
      stringDistance(word, s, STRAY_ARTICLE_EDITS) <= STRAY_ARTICLE_EDITS,
  );
}

export interface StreetQuery {
  key: StreetKey;
  keyBytes: Uint8Array;
  nameBytes: Uint8Array;
  /** Phonetic key bytes, computed on the first fuzzy scan. */
  phonBytes: Uint8Array | undefined;
  mask: number;
  maxEdits: number;
  /** What the name's length alone allows; edits beyond it need the evidence of STRETCH_LEAD (fuzzy_budget.ts). */
  lengthEdits: number;
  /** The name with short words that look like misspelt articles dropped ("Rue tde Marigny" → "marigny"). */
  altNameBytes: Uint8Array | null | undefined;
  /** The type word was itself misspelt and guessed ("Aveue" → avenue): every hit costs one edit more. */
  typeGuessed: boolean;
  /** The name-bearing small words of the query (NAME_WORDS), sorted: a street must carry the same ones. */
  nameWords: string;
  /** The same words with the type word read as the name's first word ("faubourg saint antoine" for Rue du Faubourg
   *  Saint-Antoine) when the query has a type as written, null when not; undefined until first asked for
   *  (search_order.ts, typeWordAsName). */
  typeAsName: StreetQuery | null | undefined;
  /** The street as written, for the readings search_order.ts derives from it (articles glued to the next word). */
  written: string;
  /** Those readings, computed on first use. */
  gluedArticles: StreetQuery[] | undefined;
  /** When the type was guessed from a misspelt first word, the query as written (that word read as the name's). */
  unguessed: StreetQuery | null;
  /** The readings with a consonant doubled or undoubled, for names too short for any edit; computed on first use. */
  doubledLetters: StreetQuery[] | undefined;
  /** Cache of search_order.ts's elidedArticles. */
  elidedArticles: StreetQuery[] | undefined;
  /** Cache of search_order.ts's ungluedArticles. */
  ungluedArticles: StreetQuery[] | undefined;
  /** Cache of search_order.ts's ambiguousAbbreviations. */
  ambiguousAbbreviations: StreetQuery[] | undefined;
  /** The first word every street found must have, with its space ("faubourg "): set on the reading of a type word as
   *  the name's first word, whose word is spelt as written, so that its fuzzy scan skips every other name. */
  nameHead: Uint8Array | null;
  /** The query is a street type and nothing else ("10 place 75004", "rue de"): no name was written, so no name is
   *  near it. Only a street named so exactly is found (a village's "La Place"); the fuzzy pass had made "place" Rue
   *  du Plâtre. */
  bareType: boolean;
}

/** Small words the match key drops as articles but that tell streets apart: "Rue sur la Côte" is not "Rue de la
 *  Côte", "Rue Sous Saint-Pierre" is not "Rue Saint-Pierre" (46 of 46 such probes were answered
 *  with the other street). The key keeps dropping them, so that the index format stays; the words are compared on
 *  the names themselves, only for the few hits a search returns. */
export const NAME_WORDS: ReadonlySet<string> = new Set(["sur", "sous"]);

/** The NAME_WORDS of a street name, sorted and joined ("" for most names). */
export function nameWordsOf(name: string): string {
  return tokenize(name)
    .filter((w) => NAME_WORDS.has(w))
    .sort()
    .join(" ");
}

function sameNameWords(q: StreetQuery, index: BanIndex, street: number): boolean {
  return nameWordsOf(index.streetName(street)) === q.nameWords;
}

export interface StreetScore {
  name: number;
  type: number;
}

export interface StreetHit {
  index: BanIndex;
  street: number;
  /** Sum of the partial scores; 0 = exact. */
  cost: number;
  scores: StreetScore;
  /** Found by its sound only, further in spelling than its cost says ("Osman" for Haussmann). */
  soundOnly?: true;
}

/** Scope of a search: one département index and the commune numbers inside it. */
export interface CommuneScope {
  index: BanIndex;
  communes: number[];
}

export function prepareQuery(
  key: StreetKey,
  options: { typeGuessed?: boolean; nameWords?: string; written?: string; nameHead?: string } = {},
): StreetQuery {
  const { typeGuessed = false, nameWords = "", written = key.key, nameHead } = options;
  const keyBytes = asciiBytes(key.key);
  const nameBytes = asciiBytes(key.name);
  return {
    altNameBytes: undefined,
    typeGuessed,
    nameWords,
    typeAsName: undefined,
    written,
    gluedArticles: undefined,
    unguessed: null,
    doubledLetters: undefined,
    ambiguousAbbreviations: undefined,
    elidedArticles: undefined,
    ungluedArticles: undefined,
    nameHead: nameHead === undefined ? null : asciiBytes(`${nameHead} `),
    key,
    keyBytes,
    nameBytes,
    phonBytes: undefined,
    mask: letterMask(nameBytes, 0, nameBytes.length),
    maxEdits: stretchedEdits(nameBytes.length),
    lengthEdits: maxEdits(nameBytes.length),
    bareType: key.type === null && key.nameTokens.length === 1 && isStreetType(key.nameTokens[0]!),
  };
}

function typeScore(q: StreetQuery, index: BanIndex, street: number): number {
  const t = index.st.stTypeLen[street]!;
  if (q.key.type === null) return t === 0 ? 0 : MISSING_TYPE_COST;
  // "Hameau Le Village" for BAN's lieu-dit "Le Village": the word only said that a name follows.
  if (t === 0) return NAME_INTRODUCERS.has(q.key.type) ? 0 : OTHER_TYPE_COST;
  const len = t - 1;
  if (len !== q.key.type.length) return OTHER_TYPE_COST;
  const off = index.st.stKeyOff[street]!;
  for (let i = 0; i < len; i++) if (index.blob[off + i] !== q.keyBytes[i]) return OTHER_TYPE_COST;
  return 0;
}

/** Exact matches: the full key, the NF Z 10-011 short form (abbreviations the other way round), or an alternative
 *  name. */
export function exactStreets(q: StreetQuery, scopes: readonly CommuneScope[]): StreetHit[] {
  const out: StreetHit[] = [];
  const ids: number[] = [];
  const typeEdit = q.typeGuessed ? GUESSED_TYPE_COST : 0;
  for (const { index, communes } of scopes) {
    // Each table only when the one before has no street here: a street of that name in another commune of the
    // département does not hide the alias of one of these.
    ids.length = 0;
    index.byKey(q.keyBytes, ids);
    if (!pushInScope(out, { q, index, communes, ids, typeEdit })) {
      ids.length = 0;
      index.byAfnor(q.keyBytes, ids);
      // An alias, the lieu-dit of the street's addresses, or half of a name joined by "et" names it as well as its
      // own name (index/compound_names.ts).
      if (!pushInScope(out, { q, index, communes, ids, typeEdit })) {
        ids.length = 0;
        index.byAlt(q.keyBytes, ids);
        pushInScope(out, { q, index, communes, ids, typeEdit });
      }
    }
  }
  return oneKeyInOneCommune(out) ? byDroppedWords(q, out) : out;
}

/** Whether two of the hits are streets of one commune (under one key, as exactStreets finds them). */
function oneKeyInOneCommune(hits: readonly StreetHit[]): boolean {
  for (let i = 1; i < hits.length; i++) {
    const { index, street } = hits[i]!;
    for (let j = 0; j < i; j++) {
      const other = hits[j]!;
      if (other.index === index && index.st.stCommune[other.street] === index.st.stCommune[street]) return true;
    }
  }
  return false;
}

/**
 * Streets of one commune whose keys are one, told apart by the words the key drops, as written: "Voie D/19" and
 * "Voie De/19" (both "voie 19"), "Chemin la Croix" and "Chemin de la Croix". Those written so win; when none or all
 * are, the house number decides, as before.
 */
function byDroppedWords(q: StreetQuery, hits: StreetHit[]): StreetHit[] {
  const written = droppedWords(q.written);
  const same = hits.filter((h) => droppedWords(h.index.streetName(h.street)) === written);
  return same.length > 0 && same.length < hits.length ? same : hits;
}

/** The words the key drops (stop_words.ts), in order. */
function droppedWords(text: string): string {
  return tokenize(text)
    .filter((w) => STOP_WORDS.has(w))
    .join(" ");
}

/** Adds the streets of `ids` that lie in the scope's communes as exact hits; whether there was one. */
function pushInScope(
  out: StreetHit[],
  found: { q: StreetQuery; index: BanIndex; communes: number[]; ids: number[]; typeEdit: number },
): boolean {
  const { q, index, communes, ids, typeEdit } = found;
  let pushed = false;
  for (const s of ids) {
    if (!communes.includes(index.st.stCommune[s]!) || !sameNameWords(q, index, s)) continue;
    out.push({ index, street: s, cost: typeEdit, scores: { name: 0, type: typeEdit } });
    pushed = true;
  }
  return pushed;
}

/** Streets whose name without its type is exactly the query's name, through the name hash table: a type-less query
 *  ("faubourg saint antoine") found with no slip of the name, each hit costing its missing type. */
export function streetsNamedExactly(q: StreetQuery, scopes: readonly CommuneScope[]): StreetHit[] {
  const out: StreetHit[] = [];
  const ids: number[] = [];
  for (const { index, communes } of scopes) {
    ids.length = 0;
    index.byName(q.nameBytes, ids);
    for (const s of ids) {
      if (communes.includes(index.st.stCommune[s]!)) pushHit(out, { q, index, street: s, name: 0, max: 0 });
    }
  }
  return out.sort((a, b) => a.cost - b.cost);
}

function latin1(blob: Uint8Array, start: number, length: number): string {
  return Buffer.from(blob.buffer, blob.byteOffset + start, length).toString("latin1");
}

/** Word by word, each word within its share of edits (WORD_EDIT_DIVISOR, MIN_WORD_EDITS); word counts that differ
 *  pass. */
function typoShaped(query: string, candidate: string): boolean {
  const qw = query.split(" ");
  const cw = candidate.split(" ");
  if (qw.length !== cw.length) return true;
  for (let i = 0; i < qw.length; i++) {
    const a = qw[i]!;
    const b = cw[i]!;
    if (a === b) continue;
    const allowed = Math.max(MIN_WORD_EDITS, Math.floor(Math.max(a.length, b.length) / WORD_EDIT_DIVISOR));
    if (stringDistance(a, b, allowed) > allowed) return false;
  }
  return true;
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/** Streets within the edit budget of the query's name, or with the same phonetic key; sorted by cost. */
export function fuzzyStreets(
  q: StreetQuery,
  scopes: readonly CommuneScope[],
  options: { maxEdits?: number; beyondBudget?: boolean } = {},
): StreetHit[] {
  const out: StreetHit[] = [];
  if (q.bareType) return out;
  const max = options.beyondBudget
    ? (options.maxEdits ?? q.maxEdits)
    : Math.min(q.maxEdits, options.maxEdits ?? q.maxEdits);
  const qLen = q.nameBytes.length;
  q.phonBytes ??= asciiBytes(phoneticKey(q.key.nameTokens));
  const phon = q.phonBytes;
  if (q.altNameBytes === undefined) {
    // Computed on the first fuzzy scan only: exact matches never need it.
    // A word of three letters or more that begins some street's name is a word, not a slip of an article: "ile" is one
    // edit from "le", and a word of "Cour dhe l'Île Louviers" ("dy" begins a name too, and is a slip of "du" far more
    // often).
    const nameWord = (w: string) => w.length >= 3 && scopes.some((s) => s.index.hasNameHead(w));
    const words = q.key.name.split(" ");
    const lookAlikes = words.filter((w) => w.length <= STRAY_ARTICLE_MAX_LENGTH && looksLikeStopWord(w));
    // When every such word begins a name, the first is dropped all the same ("Rue de lea Solidarité": Impasse Léa Blain).
    const strays = lookAlikes.filter((w) => !nameWord(w));
    const dropped = new Set(strays.length > 0 ? strays : lookAlikes.slice(0, 1));
    const kept = words.filter((w) => !dropped.has(w));
    q.altNameBytes = kept.length > 0 && kept.length < words.length ? asciiBytes(kept.join(" ")) : null;
  }
  const alt = max >= DROPPED_WORD_MIN_BUDGET ? q.altNameBytes : null;
  // Only names whose length is within the budget can be within the budget.
  const minLen = Math.min(qLen, alt?.length ?? qLen) - max;
  const maxLen = qLen + max;
  for (const { index, communes } of scopes) {
    const { st, blob } = index;
    const order = st.stLenOrder;
    for (const c of communes) {
      const info = index.header.communes[c]!;
      const end = info.firstStreet + info.streetCount;
      let lo = info.firstStreet;
      let hi = end;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        const s = order[mid]!;
        if (st.stKeyLen[s]! - st.stTypeLen[s]! < minLen) lo = mid + 1;
        else hi = mid;
      }
      for (let k = lo; k < end; k++) {
        const s = order[k]!;
        const t = st.stTypeLen[s]!;
        const nStart = st.stKeyOff[s]! + t;
        const nLen = st.stKeyLen[s]! - t;
        if (nLen > maxLen) break;
        if (q.nameHead !== null && !startsWith(blob, nStart, nLen, q.nameHead)) continue;
        let name = max + 1;
        if (Math.abs(nLen - qLen) <= max && (popcount(st.stMask[s]! ^ q.mask) + 1) >> 1 <= max) {
          name = boundedDistance(q.nameBytes, blob, {
            aStart: 0,
            aEnd: qLen,
            bStart: nStart,
            bEnd: nStart + nLen,
            max,
          });
        }
        // A name too short for any edit as a query is too short to be reached by one: "test" is not Rue de l'Est.
        const tooShortForEdits = maxEdits(nLen) === 0;
        if (name > 0 && tooShortForEdits) name = max + 1;
        // Without the stray article: only worth it when the name is further than dropping the word costs.
        if (name > DROPPED_WORD_COST && alt !== null && Math.abs(nLen - alt.length) <= max - DROPPED_WORD_COST) {
          const range = {
            aStart: 0,
            aEnd: alt.length,
            bStart: nStart,
            bEnd: nStart + nLen,
            max: max - DROPPED_WORD_COST,
          };
          const edits = boundedDistance(alt, blob, range);
          if (edits < name - DROPPED_WORD_COST && !(edits > 0 && tooShortForEdits)) name = edits + DROPPED_WORD_COST;
        }
        // Several edits must be spread like typos, not replace a word: "Général Pilon" is not "Général Niox".
        if (name > MIN_WORD_EDITS && name <= max && !typoShaped(q.key.name, latin1(blob, nStart, nLen))) name = max + 1;

        if (name > max) continue;
        pushHit(out, { q, index, street: s, name, max });
      }
    }
    // Sound-alikes through the phonetic hash table, whatever their spelling distance ("Osman" → "Haussmann"), when
    // the key says enough and the budget allows their cost.
    if (phon.length >= MIN_PHONETIC_KEY && max >= PHONETIC_EDITS) {
      const ids: number[] = [];
      index.byPhonetic(phon, ids);
      for (const s of ids) {
        if (!communes.includes(st.stCommune[s]!)) continue;
        const t = st.stTypeLen[s]!;
        if (q.nameHead !== null && !startsWith(blob, st.stKeyOff[s]! + t, st.stKeyLen[s]! - t, q.nameHead)) continue;
        const seen = out.findIndex((h) => h.index === index && h.street === s);
        if (seen >= 0 && out[seen]!.scores.name <= PHONETIC_EDITS) continue;
        if (seen >= 0) out.splice(seen, 1);
        pushHit(out, { q, index, street: s, name: PHONETIC_EDITS, max, soundOnly: true });
      }
    }
  }
  out.sort((a, b) => a.cost - b.cost);
  return out;
}

function startsWith(blob: Uint8Array, start: number, length: number, head: Uint8Array): boolean {
  if (length < head.length) return false;
  for (let i = 0; i < head.length; i++) if (blob[start + i] !== head[i]) return false;
  return true;
}

function pushHit(
  out: StreetHit[],
  hit: { q: StreetQuery; index: BanIndex; street: number; name: number; max: number; soundOnly?: true },
): void {
  const { q, index, street, name, max, soundOnly } = hit;
  if (!sameNameWords(q, index, street)) return;
  const type = q.typeGuessed ? GUESSED_TYPE_COST : typeScore(q, index, street);
  // Another street type spends one edit of the budget: "Villa des Chauvin" is not "Rue Chardin". The budget is the
  // name's length budget, or the edits of a stretched hit (which then keeps its type): the evidence rule stretches the
  // name, not the type ("Cité du Deville" is not "Cour Debille").
  const budget = Math.min(max, Math.max(name, q.lengthEdits));
  if (name > 0 && name * EDIT_COST + type > budget * EDIT_COST + TYPE_ALLOWANCE) return;
  const found: StreetHit = { index, street, cost: name * EDIT_COST + type, scores: { name, type } };
  if (soundOnly) found.soundOnly = true;
  out.push(found);
}

/** A winner that spent more edits than its name's length allows must lead every other name of the scope by
 *  STRETCH_LEAD edits: no other name within that many edits more than its own. When its edits are all letters left
 *  out, typed twice or swapped (slipDistance), the lead is counted in such slips (SLIP_LEAD): a rival within that
 *  many edits only by letters replaced is another name, not a reading of this one, and a rival no nearer that lacks
 *  the house number the winner has is no reading of the line either. A name under STRETCH_MIN_LENGTH letters is
 *  stretched by such slips only. */
export function stretchIsClear(
  q: StreetQuery,
  scopes: readonly CommuneScope[],
  winner: StreetHit,
  hasNumber: (hit: StreetHit) => boolean,
): boolean {
  const edits = winner.scores.name;
  if (edits <= q.lengthEdits) return true;
  const handSlips = winner.soundOnly !== true && slipEdits(q, winner, edits) <= edits;
  if (!handSlips && q.nameBytes.length < STRETCH_MIN_LENGTH) return false;
  const lead = handSlips ? SLIP_LEAD : STRETCH_LEAD;
  const rivals = fuzzyStreets(q, scopes, { maxEdits: edits + lead - 1, beyondBudget: true });
  const numbered = hasNumber(winner);
  const noReading = (h: StreetHit) =>
    (numbered && h.scores.name >= edits && !hasNumber(h)) ||
    (h.soundOnly !== true && slipEdits(q, h, edits + lead - 1) >= edits + lead);
  return rivals.every((h) => sameName(h, winner) || (handSlips && noReading(h)));
}

/** The slips of the hand (slipDistance) between the query's name and the hit's, or max + 1 when more. */
function slipEdits(q: StreetQuery, hit: StreetHit, max: number): number {
  const { st, blob } = hit.index;
  const t = st.stTypeLen[hit.street]!;
  const start = st.stKeyOff[hit.street]! + t;
  const end = st.stKeyOff[hit.street]! + st.stKeyLen[hit.street]!;
  return slipDistance(q.nameBytes, blob, { aStart: 0, aEnd: q.nameBytes.length, bStart: start, bEnd: end, max });
}

/** The streets of these scopes that carry the hit's own key (same type and name), scored as the hit: the same name is
 *  the same distance from the query. A hash probe, where a fuzzy scan of every commune of the scopes would find the
 *  same streets among all the others. */
export function streetsNamedAs(hit: StreetHit, scopes: readonly CommuneScope[]): StreetHit[] {
  const { st, blob } = hit.index;
  const off = st.stKeyOff[hit.street]!;
  const key = blob.subarray(off, off + st.stKeyLen[hit.street]!);
  const out: StreetHit[] = [];
  const ids: number[] = [];
  for (const { index, communes } of scopes) {
    ids.length = 0;
    index.byKey(key, ids);
    for (const street of ids) {
      if (communes.includes(index.st.stCommune[street]!)) out.push({ ...hit, index, street });
    }
  }
  return out;
}

/** Two hits carry the same street key (same type and name), in one index or two. */
export function sameName(a: StreetHit, b: StreetHit): boolean {
  const ak = a.index.st.stKeyLen[a.street]!;
  if (ak !== b.index.st.stKeyLen[b.street]!) return false;
  const ao = a.index.st.stKeyOff[a.street]!;
  const bo = b.index.st.stKeyOff[b.street]!;
  for (let i = 0; i < ak; i++) if (a.index.blob[ao + i] !== b.index.blob[bo + i]) return false;
  return true;
}

/**
 * The hits that share the best street name, when that name is clearly better than any other (CLEAR_MARGIN ahead);
 * `prefer` breaks a tie, typically "this street has the house number". Null when it stays ambiguous.
 */
export function clearWinner(hits: readonly StreetHit[], prefer?: (hit: StreetHit) => boolean): StreetHit[] | null {
  if (hits.length === 0) return null;
  const best = hits[0]!;
  const rival = hits.find((h) => !sameName(h, best));
  if (rival === undefined || rival.cost - best.cost >= CLEAR_MARGIN) return hits.filter((h) => sameName(h, best));
  const close = hits.filter((h) => h.cost - best.cost < CLEAR_MARGIN);
  if (prefer) {
    const preferred = close.filter(prefer);
    if (preferred.length > 0 && preferred.every((h) => sameName(h, preferred[0]!))) {
      return hits.filter((h) => sameName(h, preferred[0]!));
    }
  }
  // A slip of the spelling beats a sound-alike of the same cost: "Rue Soleilet" is Rue Soleillet (one letter), not Rue
  // du Soleil (which only sounds the same).
  const spelled = close.filter((h) => h.cost === best.cost && h.soundOnly !== true);
  if (
    spelled.length > 0 &&
    close.some((h) => h.soundOnly) &&
    close.every((h) => h.soundOnly || sameName(h, spelled[0]!))
  ) {
    return hits.filter((h) => sameName(h, spelled[0]!));
  }
  return null;
}
