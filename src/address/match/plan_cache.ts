// The plan cache: search plans (place.ts) depend on postcode, city and CEDEX only, and a few thousand such triples
// make up the traffic, so they are memoized, with what each plan needs from the indexes: the commune scopes of its
// tiers and whether its communes lie in indexed départements.
import type { BanIndex } from "../index/ban_index.ts";
import { departementOfInsee } from "../index/departement.ts";
import { cityKey } from "../normalize/match_key.ts";
import type { ParsedAddress } from "../parse/parse_address.ts";
import type { Reference } from "../reference/reference.ts";
import { resolvePlace, type SearchPlan, type SearchTier } from "./place.ts";
import type { CommuneScope } from "./street_search.ts";

/** Plans kept before the cache starts over: far more than the distinct places of real traffic, and a bound on what
 *  a stream of invented places can hold. */
export const PLAN_CACHE_SIZE = 20_000;

export interface ScopedTier {
  tier: SearchTier;
  scopes: CommuneScope[];
}

/** Which candidate communes (of every tier) lie in indexed départements. */
export interface Coverage {
  /** Candidate communes, over all tiers. */
  communes: number;
  /** At least one candidate is in an indexed département. */
  covered: boolean;
  /** At least one candidate is not. */
  uncovered: boolean;
  /** Every commune of the first tier is indexed: the place given (a consistent postcode and city) is covered, so a
   *  street missing there is street_not_found whatever the later tiers hold (coverage is decided on the
   *  commune found, "Chaux" or "Croix" existing elsewhere in France changes nothing). */
  firstCovered: boolean;
}

export interface ScopedPlan extends SearchPlan {
  scoped: ScopedTier[];
  coverage: Coverage;
}

export interface PlanCacheOptions {
  indexes: ReadonlyMap<string, BanIndex>;
  reference: Reference;
}

export class PlanCache {
  readonly #indexes: ReadonlyMap<string, BanIndex>;
  readonly #ref: Reference;
  readonly #plans = new Map<string, ScopedPlan>();

  constructor(options: PlanCacheOptions) {
    this.#indexes = options.indexes;
    this.#ref = options.reference;
  }

  /** The plan of a parsed address, from the cache or resolved now. */
  get(p: ParsedAddress): ScopedPlan {
    const key = `${p.postcode}|${p.city === null ? "" : cityKey(p.city)}|${p.city === null ? 0 : 1}|${p.cedexDepartement}`;
    let plan = this.#plans.get(key);
    if (plan === undefined) {
      const resolved = resolvePlace(p, this.#ref);
      plan = {
        ...resolved,
        scoped: resolved.tiers.map((tier) => ({ tier, scopes: this.#scopes(tier.communes) })),
        coverage: this.#coverage(resolved.tiers),
      };
      if (this.#plans.size >= PLAN_CACHE_SIZE) this.#plans.clear();
      this.#plans.set(key, plan);
    }
    return plan;
  }

  /** The communes by indexed département, as commune numbers of each index; communes not indexed are left out. */
  #scopes(communes: readonly string[]): CommuneScope[] {
    const byDept = new Map<string, number[]>();
    for (const c of communes) {
      const index = this.#indexes.get(departementOfInsee(c));
      const n = index?.communeByCode.get(c);
      if (index === undefined || n === undefined) continue;
      const list = byDept.get(index.departement) ?? [];
      list.push(n);
      byDept.set(index.departement, list);
    }
    return [...byDept].map(([d, list]) => ({ index: this.#indexes.get(d)!, communes: list }));
  }

  #coverage(tiers: readonly SearchTier[]): Coverage {
    const first = tiers[0]?.communes ?? [];
    const coverage: Coverage = {
      communes: 0,
      covered: false,
      uncovered: false,
      firstCovered: first.length > 0 && first.every((c) => this.#indexes.has(departementOfInsee(c))),
    };
    for (const tier of tiers) {
      for (const c of tier.communes) {
        coverage.communes++;
        if (this.#indexes.has(departementOfInsee(c))) coverage.covered = true;
        else coverage.uncovered = true;
      }
    }
    return coverage;
  }
}
