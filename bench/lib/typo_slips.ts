// A seeded set of email domain slips (bench/email_typo.ts): for each target mailbox domain, slips of every kind people
// make, each with the domain meant; and real domains beside the targets, which must never be corrected. The slips
// are made here from a model of their own (the keyboard rows of AZERTY and QWERTY, the TLD slips seen in corpora), not
// from the check's distance, so that the bench can tell where the check is wrong. Deterministic for a seed.
import { seededRandom } from "../../test/helpers/seeded_random.ts";

export const SLIP_KINDS = [
  "neighbour_azerty",
  "neighbour_qwerty",
  "transposition",
  "doubled",
  "dropped",
  "struck_beside",
  "two_slips",
  "dot_missing",
  "dot_moved",
  "dot_comma",
  "tld_slip",
] as const;
export type SlipKind = (typeof SLIP_KINDS)[number];

export interface SlipCase {
  kind: SlipKind;
  /** What follows the '@', as typed. */
  typed: string;
  meant: string;
}

/**
 * Real mailbox domains beside the targets that the check's data does not list (other countries of the same
 * providers): how the check treats a real domain it was never told about.
 */
export const UNLISTED_REAL_DOMAINS: readonly string[] = [
  "yahoo.ro",
  "yahoo.dk",
  "yahoo.se",
  "yahoo.no",
  "yahoo.fi",
  "yahoo.pl",
  "yahoo.com.mx",
  "yahoo.com.ar",
  "yahoo.com.sg",
  "yahoo.com.tw",
  "yahoo.co.nz",
  "yahoo.co.id",
  "yahoo.com.ph",
  "hotmail.fi",
  "hotmail.no",
  "hotmail.dk",
  "hotmail.co.jp",
  "hotmail.com.ar",
  "hotmail.com.br",
  "hotmail.com.tr",
  "hotmail.gr",
  "live.se",
  "live.dk",
  "live.no",
  "live.at",
  "live.ie",
  "live.com.au",
  "live.com.mx",
  "live.cl",
  "outlook.jp",
  "outlook.com.br",
  "outlook.kr",
  "outlook.cl",
  "outlook.sa",
  "outlook.ie",
  "gmx.li",
  "gmx.eu",
  "aol.it",
  "aol.nl",
  "aol.se",
  "yandex.com.tr",
  "orange.es",
  "orange.be",
  "orange.pl",
  "orange.jo",
  "libero.com",
];

// Letter rows; each row sits half a key to the right of the one above it.
const LAYOUTS = {
  azerty: ["azertyuiop", "qsdfghjklm", "wxcvbn"],
  qwerty: ["qwertyuiop", "asdfghjkl", "zxcvbnm"],
} as const;

function neighboursOn(rows: readonly string[], letter: string): string[] {
  const out: string[] = [];
  rows.forEach((row, r) => {
    const c = row.indexOf(letter);
    if (c < 0) return;
    if (c > 0) out.push(row[c - 1]!);
    if (c + 1 < row.length) out.push(row[c + 1]!);
    const above = rows[r - 1];
    if (above !== undefined) out.push(...[above[c], above[c + 1]].filter((k): k is string => k !== undefined));
    const below = rows[r + 1];
    if (below !== undefined) out.push(...[below[c - 1], below[c]].filter((k): k is string => k !== undefined));
  });
  return out;
}

/** TLD slips by the TLD meant: the keyboard slips seen in corpora and in mailcheck's spec. */
const TLD_SLIPS: Readonly<Record<string, readonly string[]>> = {
  com: ["con", "cm", "om", "co", "cmo", "vom", "xom", "comm", "ocm", "cpm"],
  fr: ["fe", "ft", "fd", "frr", "rf", "ffr"],
  net: ["ne", "nte", "nett", "ner"],
  de: ["dee", "ed", "dr"],
  ru: ["ruu", "ur"],
  it: ["itt", "iit"],
  me: ["mee", "mw"],
  uk: ["ukk", "ku"],
};

type Random = () => number;

function pick<T>(random: Random, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}

/** Positions of letters (not '-') in the name part. */
function letterPositions(name: string): number[] {
  return [...name].flatMap((ch, i) => (/[a-z]/.test(ch) ? [i] : []));
}

function replaceAt(s: string, i: number, by: string): string {
  return s.slice(0, i) + by + s.slice(i + 1);
}

/** One letter slip of `name`, or null when none of that kind exists. */
function letterSlip(random: Random, name: string, kind: SlipKind): string | null {
  const positions = letterPositions(name);
  if (positions.length === 0) return null;
  const i = pick(random, positions);
  const ch = name[i]!;
  switch (kind) {
    case "neighbour_azerty":
    case "neighbour_qwerty": {
      const near = neighboursOn(LAYOUTS[kind === "neighbour_azerty" ? "azerty" : "qwerty"], ch);
      return near.length === 0 ? null : replaceAt(name, i, pick(random, near));
    }
    case "transposition": {
      if (i + 1 >= name.length || name[i + 1] === ch || name[i + 1] === "-") return null;
      return name.slice(0, i) + name[i + 1] + ch + name.slice(i + 2);
    }
    case "doubled":
      return name.slice(0, i + 1) + ch + name.slice(i + 1);
    case "dropped":
      return name.length <= 1 ? null : name.slice(0, i) + name.slice(i + 1);
    case "struck_beside": {
      const near = neighboursOn(pick(random, [LAYOUTS.azerty, LAYOUTS.qwerty]), ch);
      if (near.length === 0) return null;
      const k = pick(random, near);
      return random() < 0.5 ? name.slice(0, i) + k + name.slice(i) : name.slice(0, i + 1) + k + name.slice(i + 1);
    }
    default:
      return null;
  }
}

const LETTER_KINDS: readonly SlipKind[] = [
  "neighbour_azerty",
  "neighbour_qwerty",
  "transposition",
  "doubled",
  "dropped",
  "struck_beside",
];

/** Splits a target into its name and its suffix (yahoo + co.uk); `suffixes` holds the targets' public suffixes. */
function split(domain: string, suffixes: readonly string[]): { name: string; suffix: string } {
  const suffix = suffixes.filter((s) => domain.endsWith(`.${s}`)).sort((a, b) => b.length - a.length)[0]!;
  return { name: domain.slice(0, domain.length - suffix.length - 1), suffix };
}

function oneSlip(random: Random, target: string, kind: SlipKind, suffixes: readonly string[]): string | null {
  const { name, suffix } = split(target, suffixes);
  const tld = suffix.slice(suffix.lastIndexOf(".") + 1);
  const withTld = (t: string) => `${suffix.slice(0, suffix.length - tld.length)}${t}`;
  const dot = target.lastIndexOf(".");
  switch (kind) {
    case "dot_missing":
      return target.slice(0, dot) + target.slice(dot + 1);
    case "dot_comma":
      return `${target.slice(0, dot)},${target.slice(dot + 1)}`;
    case "dot_moved":
      // One place left (gmai.lcom) or right (gmailc.om).
      return random() < 0.5
        ? `${target.slice(0, dot - 1)}.${target[dot - 1]}${target.slice(dot + 1)}`
        : `${target.slice(0, dot)}${target[dot + 1]}.${target.slice(dot + 2)}`;
    case "tld_slip": {
      const slips = TLD_SLIPS[tld];
      return slips === undefined ? null : `${name}.${withTld(pick(random, slips))}`;
    }
    case "two_slips": {
      // Two letter slips, or one letter slip and a TLD slip (gamil.om).
      const first = letterSlip(random, name, pick(random, LETTER_KINDS));
      if (first === null) return null;
      const slips = TLD_SLIPS[tld];
      if (random() < 0.5 && slips !== undefined) return `${first}.${withTld(pick(random, slips))}`;
      const second = letterSlip(random, first, pick(random, LETTER_KINDS));
      return second === null ? null : `${second}.${suffix}`;
    }
    default: {
      const slipped = letterSlip(random, name, kind);
      return slipped === null ? null : `${slipped}.${suffix}`;
    }
  }
}

/**
 * `perKind` distinct slips of every kind for each target (fewer when a target has fewer), none of them a target or
 * a real domain itself (a slip that lands on a real domain is that domain, not a slip).
 */
export function buildSlipSet(options: {
  seed: number;
  perKind: number;
  targets: readonly string[];
  real: ReadonlySet<string>;
}): SlipCase[] {
  const { seed, perKind, targets, real } = options;
  const random = seededRandom(seed);
  const suffixes = [...new Set(targets.map((t) => t.slice(t.indexOf(".") + 1)))];
  const cases: SlipCase[] = [];
  for (const target of targets) {
    for (const kind of SLIP_KINDS) {
      const seen = new Set<string>();
      for (let attempt = 0; attempt < perKind * 20 && seen.size < perKind; attempt++) {
        const typed = oneSlip(random, target, kind, suffixes);
        if (typed === null || seen.has(typed) || typed === target || targets.includes(typed) || real.has(typed)) {
          continue;
        }
        seen.add(typed);
        cases.push({ kind, typed, meant: target });
      }
    }
  }
  return cases;
}
