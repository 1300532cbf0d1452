// email_typo: how often the typo check suggests the address meant, on a seeded set of slips of every target mailbox
// domain (every slip kind: keyboard neighbours on AZERTY and QWERTY, swaps, doubled, dropped and extra letters, two
// slips, a dropped, moved or comma dot, TLD slips; bench/lib/typo_slips.ts), and how often it flags a real domain
// beside them (the siblings and real neighbours of data/email/typo_domains.json, npm email-providers' ranked list,
// and real domains the data does not list). Each address goes where the engine sends it: the syntax check's
// suggestion when it is malformed (jane@gmailcom), the typo check's otherwise. Beside it, mailcheck (npm) on the same
// set, given the same target domains. Then the check's cost per address, on the same set and on ordinary domains.
//   npx tsx bench/email_typo.ts        (env: TYPO_SEED=42, TYPO_PER_KIND=3, TYPO_SHOW=wrong|missed|false_alarms)
import { createRequire } from "node:module";
import { parseEmail, suggestForMalformed } from "../src/email/checks/syntax.ts";
import {
  COMMON_MAIL_DOMAINS,
  REAL_NEIGHBOUR_DOMAINS,
  SIBLING_DOMAINS,
  suggestEmail,
  TARGET_DOMAINS,
} from "../src/email/checks/typo.ts";
import { buildSlipSet, SLIP_KINDS, type SlipKind, UNLISTED_REAL_DOMAINS } from "./lib/typo_slips.ts";

interface MailcheckSuggestion {
  domain: string;
}
interface Mailcheck {
  suggest(
    email: string,
    domains: string[],
    secondLevelDomains: string[],
    topLevelDomains: string[],
  ): MailcheckSuggestion | false;
  defaultSecondLevelDomains: string[];
  defaultTopLevelDomains: string[];
}

const require = createRequire(import.meta.url);
const mailcheck = require("mailcheck") as Mailcheck;

const seed = Number(process.env.TYPO_SEED ?? 42);
const perKind = Number(process.env.TYPO_PER_KIND ?? 3);
const show = process.env.TYPO_SHOW;
const LOCAL = "jane.doe";

const real = [
  ...new Set([...SIBLING_DOMAINS, ...REAL_NEIGHBOUR_DOMAINS, ...COMMON_MAIL_DOMAINS, ...UNLISTED_REAL_DOMAINS]),
].filter((d) => !TARGET_DOMAINS.includes(d));
const slips = buildSlipSet({ seed, perKind, targets: TARGET_DOMAINS, real: new Set(real) });

/** The domain vrai suggests for what was typed after the '@', or null: as the engine answers it. */
function vrai(typed: string): string | null {
  const address = `${LOCAL}@${typed}`;
  const parsed = parseEmail(address);
  const suggestion = parsed.ok ? suggestEmail(parsed.email) : suggestForMalformed(address);
  return suggestion === null ? null : suggestion.slice(suggestion.lastIndexOf("@") + 1);
}

// mailcheck is given the same targets, its own lists of second-level names and TLDs, and the targets' names and TLDs.
const mcSecondLevel = [
  ...new Set([...mailcheck.defaultSecondLevelDomains, ...TARGET_DOMAINS.map((d) => d.slice(0, d.indexOf(".")))]),
];
const mcTopLevel = [
  ...new Set([...mailcheck.defaultTopLevelDomains, ...TARGET_DOMAINS.map((d) => d.slice(d.indexOf(".") + 1))]),
];
function viaMailcheck(typed: string): string | null {
  const found = mailcheck.suggest(`${LOCAL}@${typed}`, [...TARGET_DOMAINS], mcSecondLevel, mcTopLevel);
  return found === false ? null : found.domain;
}

interface Score {
  n: number;
  right: number;
  wrong: number;
  missed: number;
}
const score = (): Score => ({ n: 0, right: 0, wrong: 0, missed: 0 });
const pct = (k: number, n: number) => (n === 0 ? "n/a" : `${((100 * k) / n).toFixed(1)}%`);

function measure(suggest: (typed: string) => string | null, label: string) {
  const all = score();
  const byKind = new Map<SlipKind, Score>(SLIP_KINDS.map((k) => [k, score()]));
  for (const c of slips) {
    const got = suggest(c.typed);
    for (const s of [all, byKind.get(c.kind)!]) {
      s.n++;
      if (got === c.meant) s.right++;
      else if (got === null) s.missed++;
      else s.wrong++;
    }
    if (label === "vrai" && show !== undefined && got !== c.meant && (got === null) === (show === "missed")) {
      if (show === "wrong" || show === "missed")
        console.error(`${label} ${c.kind} ${c.typed} → ${got} (meant ${c.meant})`);
    }
  }
  const alarms = real.filter((d) => suggest(d) !== null);
  // The real domains the check's data lists nowhere: what its rules do, not its lists.
  const unlisted = UNLISTED_REAL_DOMAINS.filter((d) => suggest(d) !== null).length;
  if (label === "vrai" && show === "false_alarms")
    for (const d of alarms) console.error(`${label} ${d} → ${suggest(d)}`);
  return { all, byKind, alarms: alarms.length, unlisted };
}

const ours = measure(vrai, "vrai");
const theirs = measure(viaMailcheck, "mailcheck");

// Cost per address of the typo check (what the engine runs for every well-formed address), on the bench set and on
// ordinary domains (most calls: a company's or a provider's domain written right).
const ordinary = Array.from({ length: 2000 }, (_, i) => {
  const words = ["acme", "dupont", "mairie", "cabinet", "atelier", "groupe", "conseil", "immo", "transports", "agence"];
  const tlds = ["fr", "com", "net", "org", "eu", "io", "de", "be"];
  return `${words[i % words.length]}-${words[(i * 7) % words.length]}${i}.${tlds[i % tlds.length]}`;
}).concat(TARGET_DOMAINS);
function costMicros(domains: readonly string[]): number {
  const parsed = domains.flatMap((d) => {
    const p = parseEmail(`${LOCAL}@${d}`);
    return p.ok ? [p.email] : [];
  });
  const rounds = Math.max(1, Math.ceil(200_000 / parsed.length));
  for (const p of parsed) suggestEmail(p); // warm-up
  // CPU time, not wall time: the machine is shared, and a wall clock counts the other processes' turns too.
  const started = process.cpuUsage();
  for (let r = 0; r < rounds; r++) for (const p of parsed) suggestEmail(p);
  const spent = process.cpuUsage(started);
  return (spent.user + spent.system) / (rounds * parsed.length);
}
const costSet = costMicros([...slips.map((c) => c.typed), ...real]);
const costOrdinary = costMicros(ordinary);

const kinds = [...ours.byKind].map(([k, s]) => `${k}=${pct(s.right, s.n)}`).join(" ");
const line = (name: string, r: typeof ours) =>
  `${name}right=${pct(r.all.right, r.all.n)} ${name}wrong=${pct(r.all.wrong, r.all.n)} ${name}missed=${pct(r.all.missed, r.all.n)} ${name}false_alarms=${r.alarms}/${real.length} ${name}false_alarms_unlisted=${r.unlisted}/${UNLISTED_REAL_DOMAINS.length}`;
console.log(
  `email_typo seed=${seed} slips=${slips.length} targets=${TARGET_DOMAINS.length} real=${real.length} ${line("", ours)} ${line("mailcheck_", theirs)} ${kinds} cpu_us_per_address=${costSet.toFixed(2)} cpu_us_per_ordinary_address=${costOrdinary.toFixed(2)}`,
);
