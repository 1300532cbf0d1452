// address_accuracy: share of a seeded evaluation set answered right, per category (exact addresses, typos,
// abbreviations, wrong arrondissement postcodes, missing numbers, out-of-range numbers, invented streets; issue 14:
// two-edit typos, messy lines, nationwide postcode/city mismatches, consistent pairs outside coverage, suffixes,
// numbers in names; people's names shortened, bench/lib/person_name_cases.ts), drawn from
// the real Paris BAN file and the nationwide reference. Baseline from the same run: an exact-key lookup (normalisation only, no typo tolerance, no
// postcode correction), to read what the fuzzy matcher adds.
//   npx tsx bench/address_accuracy.ts        (env: ACCURACY_SEED=42, ACCURACY_PER_CATEGORY=1000, ACCURACY_SHOW=typo2)
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { BanIndex } from "../src/address/index/ban_index.ts";
import { asciiBytes } from "../src/address/index/format.ts";
import { importBan } from "../src/address/index/import.ts";
import { AddressMatcher } from "../src/address/match.ts";
import { streetKey } from "../src/address/normalize/match_key.ts";
import { readPackedFile } from "../src/address/packed_file.ts";
import { parseAddress } from "../src/address/parse/parse_address.ts";
import { compileReference } from "../src/address/reference/compile.ts";
import { packReference } from "../src/address/reference/pack_reference.ts";
import { Reference } from "../src/address/reference/reference.ts";
import type { AddressVerification } from "../src/address/types.ts";
import { buildEvalSet, type EvalCase, type EvalCategory } from "./lib/eval_set.ts";
import { parisFileOrSkip } from "./lib/paris.ts";

const PARIS = parisFileOrSkip("address_accuracy");
const seed = Number(process.env.ACCURACY_SEED ?? 42);
const perCategory = Number(process.env.ACCURACY_PER_CATEGORY ?? 1000);
// ACCURACY_SHOW=<category> prints that category's misses on stderr.
const show = process.env.ACCURACY_SHOW;

const dir = mkdtempSync(path.join(tmpdir(), "vrai-accuracy-"));
try {
  const [imported] = await importBan(PARIS, { banSource: path.dirname(PARIS), indexDir: dir });
  const index = new BanIndex(readPackedFile(imported.path));
  const tables = compileReference();
  const reference = new Reference(packReference(tables));
  const matcher = new AddressMatcher({ indexes: [index], reference });
  const cases = buildEvalSet(index, { seed, perCategory, nationwide: { reference, tables } });

  const right = (c: EvalCase, r: Pick<AddressVerification, "verdict" | "reasons" | "normalized">) =>
    r.verdict === c.verdict &&
    (c.reason === null || r.reasons.includes(c.reason)) &&
    (c.street === null || r.normalized?.street === c.street) &&
    (c.postcode === null || r.normalized?.postcode === c.postcode) &&
    (c.suffix === undefined || r.normalized?.house_number_suffix === c.suffix);

  // Baseline: normalise, look the exact key up in the postcode's commune, check the number; nothing else.
  const baseline = (c: EvalCase): Pick<AddressVerification, "verdict" | "reasons" | "normalized"> => {
    const p = parseAddress(c.input);
    const communes = p.postcode ? reference.communesOfPostcode(p.postcode) : [];
    const ids: number[] = [];
    if (p.street) index.byKey(asciiBytes(streetKey(p.street).key), ids);
    const s = ids.find((i) => communes.includes(index.communeCode(i)));
    if (s === undefined) return { verdict: "nonexistent", reasons: ["street_not_found"], normalized: null };
    const normalized = {
      house_number: p.houseNumber,
      house_number_suffix: null,
      street: index.streetName(s),
      postcode: p.postcode!,
      city: "Paris",
      country: "FR" as const,
      line: "",
      latitude: null,
      longitude: null,
    };
    if (p.houseNumber === null) return { verdict: "incomplete", reasons: ["missing_house_number"], normalized };
    const [lo, hi] = index.numberRange(s, Number(p.houseNumber));
    return hi > lo
      ? { verdict: "deliverable", reasons: [], normalized }
      : { verdict: "nonexistent", reasons: ["house_number_out_of_range"], normalized };
  };

  const cats = new Map<EvalCategory, { n: number; ok: number; base: number }>();
  for (const c of cases) {
    const s = cats.get(c.category) ?? { n: 0, ok: 0, base: 0 };
    s.n++;
    const r = matcher.match(c.input);
    if (right(c, r)) s.ok++;
    else if (show === c.category)
      console.error(
        `miss ${c.category} ${JSON.stringify(c.input)} → ${r.verdict} [${r.reasons}] ${r.normalized?.line}`,
      );
    if (right(c, baseline(c))) s.base++;
    cats.set(c.category, s);
  }
  const pct = (a: number, b: number) => `${((a / b) * 100).toFixed(1)}%`;
  const total = [...cats.values()].reduce((a, s) => ({ n: a.n + s.n, ok: a.ok + s.ok, base: a.base + s.base }), {
    n: 0,
    ok: 0,
    base: 0,
  });
  const parts = [...cats].map(([k, s]) => `${k}=${pct(s.ok, s.n)}`);
  const baseParts = [...cats].map(([k, s]) => `baseline_${k}=${pct(s.base, s.n)}`);
  console.log(
    `address_accuracy n=${total.n} seed=${seed} all=${pct(total.ok, total.n)} ${parts.join(" ")} baseline_all=${pct(total.base, total.n)} ${baseParts.join(" ")}`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
