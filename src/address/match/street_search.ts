// Street lookup among a set of communes: exact match keys through the hash tables, then a bounded fuzzy scan of the
// communes' streets. Costs are named partial scores in half-edits (STYLE habit 11): a typo or a phonetic slip costs
// 2, a different street type 2, a missing type 1. A fuzzy answer needs a clear margin over the next different name.
import type { BanIndex } from "../index/ban_index.ts";
import { asciiBytes, letterMask } from "../index/format.ts";
import type { StreetKey } from "../normalize/match_key.ts";
import { phoneticKey } from "../normalize/phonetic.ts";
import { STOP_WORDS } from "../normalize/stop_words.ts";
import { boundedDistance, maxEdits, stringDistance } from "./edit_distance.ts";

const STOP_LIST = [...STOP_WORDS].filter((w) => w.length >= 2);
/** A short word one edit away from an article ("tde", "al", "dwes"): a slip that tokenisation cannot undo. */
function looksLikeStopWord(word: string): boolean {
  if (STOP_WORDS.has(word)) return false;
  return STOP_LIST.some((s) => Math.abs(s.length - word.length) <= 1 && stringDistance(word, s, 1) <= 1);
}

export interface StreetQuery {
  key: StreetKey;
  keyBytes: Uint8Array;
  nameBytes: Uint8Array;
  /** Phonetic key bytes, computed on the first fuzzy scan. */
  phonBytes: Uint8Array | undefined;
  mask: number;
  maxEdits: number;
  /** The name with short words that look like misspelt articles dropped ("Rue tde Marigny" → "marigny"). */
  altNameBytes: Uint8Array | null | undefined;
  /** The type word was itself misspelt and guessed ("Aveue" → avenue): every hit costs one edit more. */
  typeGuessed: boolean;
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
}

/** Scope of a search: one département index and the commune numbers inside it. */
export interface CommuneScope {
  index: BanIndex;
  communes: number[];
}

export function prepareQuery(key: StreetKey, options: { typeGuessed?: boolean } = {}): StreetQuery {
  const { typeGuessed = false } = options;
  const keyBytes = asciiBytes(key.key);
  const nameBytes = asciiBytes(key.name);
  return {
    altNameBytes: undefined,
    typeGuessed,
    key,
    keyBytes,
    nameBytes,
    phonBytes: undefined,
    mask: letterMask(nameBytes, 0, nameBytes.length),
    maxEdits: maxEdits(nameBytes.length),
  };
}

function typeScore(q: StreetQuery, index: BanIndex, street: number): number {
  const t = index.st.stTypeLen[street]!;
  if (q.key.type === null) return t === 0 ? 0 : 1;
  if (t === 0) return 2;
  const len = t - 1;
  if (len !== q.key.type.length) return 2;
  const off = index.st.stKeyOff[street]!;
  for (let i = 0; i < len; i++) if (index.blob[off + i] !== q.keyBytes[i]) return 2;
  return 0;
}

/** Exact matches: the full key, or the NF Z 10-011 short form (abbreviations the other way round). */
export function exactStreets(q: StreetQuery, scopes: readonly CommuneScope[]): StreetHit[] {
  const out: StreetHit[] = [];
  const ids: number[] = [];
  const typeEdit = q.typeGuessed ? 2 : 0;
  for (const { index, communes } of scopes) {
    ids.length = 0;
    index.byKey(q.keyBytes, ids);
    if (ids.length === 0) index.byAfnor(q.keyBytes, ids);
    for (const s of ids) {
      if (communes.includes(index.st.stCommune[s]!)) out.push({ index, street: s, cost: typeEdit, scores: { name: 0, type: typeEdit } });
    }
  }
  return out;
}

function latin1(blob: Uint8Array, start: number, length: number): string {
  return Buffer.from(blob.buffer, blob.byteOffset + start, length).toString("latin1");
}

/** Word by word, each word within a third of its length (at least one edit); word counts that differ pass. */
function typoShaped(query: string, candidate: string): boolean {
  const qw = query.split(" ");
  const cw = candidate.split(" ");
  if (qw.length !== cw.length) return true;
  for (let i = 0; i < qw.length; i++) {
    const a = qw[i]!;
    const b = cw[i]!;
    if (a === b) continue;
    const allowed = Math.max(1, Math.floor(Math.max(a.length, b.length) / 3));
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
export function fuzzyStreets(q: StreetQuery, scopes: readonly CommuneScope[], options: { maxEdits?: number } = {}): StreetHit[] {
  const out: StreetHit[] = [];
  const max = Math.min(q.maxEdits, options.maxEdits ?? q.maxEdits);
  const qLen = q.nameBytes.length;
  q.phonBytes ??= asciiBytes(phoneticKey(q.key.nameTokens));
  const phon = q.phonBytes;
  if (q.altNameBytes === undefined) {
    // Computed on the first fuzzy scan only: exact matches never need it.
    const words = q.key.name.split(" ");
    const kept = words.filter((w) => !(w.length <= 4 && looksLikeStopWord(w)));
    q.altNameBytes = kept.length > 0 && kept.length < words.length ? asciiBytes(kept.join(" ")) : null;
  }
  const alt = max > 1 ? q.altNameBytes : null;
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
        let name = max + 1;
        if (Math.abs(nLen - qLen) <= max && (popcount(st.stMask[s]! ^ q.mask) + 1) >> 1 <= max) {
          name = boundedDistance(q.nameBytes, blob, { aStart: 0, aEnd: qLen, bStart: nStart, bEnd: nStart + nLen, max });
        }
        if (name > 1 && alt !== null && Math.abs(nLen - alt.length) <= max - 1) {
          const d = boundedDistance(alt, blob, { aStart: 0, aEnd: alt.length, bStart: nStart, bEnd: nStart + nLen, max: max - 1 }) + 1;
          if (d < name) name = d;
        }
        // Several edits must be spread like typos, not replace a word: "Général Pilon" is not "Général Niox".
        if (name >= 2 && name <= max && !typoShaped(q.key.name, latin1(blob, nStart, nLen))) name = max + 1;
        if (name > max) continue;
        pushHit(out, { q, index, street: s, name, max });
      }
    }
    // Sound-alikes through the phonetic hash table, whatever their spelling distance ("Osman" → "Haussmann").
    // Keys of 3 letters or fewer say too little ("Faure" and "Forez" both give "for").
    if (phon.length >= 4 && max >= 1) {
      const ids: number[] = [];
      index.byPhonetic(phon, ids);
      for (const s of ids) {
        if (!communes.includes(st.stCommune[s]!)) continue;
        const seen = out.findIndex((h) => h.index === index && h.street === s);
        if (seen >= 0 && out[seen]!.scores.name <= 1) continue;
        if (seen >= 0) out.splice(seen, 1);
        pushHit(out, { q, index, street: s, name: 1, max });
      }
    }
  }
  out.sort((a, b) => a.cost - b.cost);
  return out;
}

function pushHit(out: StreetHit[], hit: { q: StreetQuery; index: BanIndex; street: number; name: number; max: number }): void {
  const { q, index, street, name, max } = hit;
  const type = q.typeGuessed ? 2 : typeScore(q, index, street);
  // Another street type spends one edit of the budget: "Villa des Chauvin" is not "Rue Chardin".
  if (name > 0 && name * 2 + type > max * 2 + 1) return;
  out.push({ index, street, cost: name * 2 + type, scores: { name, type } });
}

function sameName(a: StreetHit, b: StreetHit): boolean {
  const ak = a.index.st.stKeyLen[a.street]!;
  if (ak !== b.index.st.stKeyLen[b.street]!) return false;
  const ao = a.index.st.stKeyOff[a.street]!;
  const bo = b.index.st.stKeyOff[b.street]!;
  for (let i = 0; i < ak; i++) if (a.index.blob[ao + i] !== b.index.blob[bo + i]) return false;
  return true;
}

/**
 * The hits that share the best street name, when that name is clearly better than any other (at least one edit
 * ahead); `prefer` breaks a tie, typically "this street has the house number". Null when it stays ambiguous.
 */
export function clearWinner(hits: readonly StreetHit[], prefer?: (hit: StreetHit) => boolean): StreetHit[] | null {
  if (hits.length === 0) return null;
  const best = hits[0]!;
  const rival = hits.find((h) => !sameName(h, best));
  if (rival === undefined || rival.cost - best.cost >= 2) return hits.filter((h) => sameName(h, best));
  if (prefer) {
    const close = hits.filter((h) => h.cost - best.cost < 2);
    const preferred = close.filter(prefer);
    if (preferred.length > 0 && preferred.every((h) => sameName(h, preferred[0]!))) {
      return hits.filter((h) => sameName(h, preferred[0]!));
    }
  }
  return null;
}
