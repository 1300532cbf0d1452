// Plans: quotas per endpoint and month, the token bucket, and the bulk batch ceiling (docs/contract.md §5).
import { readFileSync } from "node:fs";
import * as v from "valibot";

export type MeteredEndpoint = "email" | "address";

export interface Plan {
  name: string;
  /** null: unmetered (no quota, no X-Quota-* headers). */
  quota: Record<MeteredEndpoint, number> | null;
  rate: { per_minute: number; burst: number };
  batch_max: number;
  /** Rows one bulk address job may hold (POST /v1/address/bulk), ADDRESS_BATCH_MAX when unset (docs/decisions.md). */
  address_batch_max?: number;
}

export const SPEC_BATCH_MAX = 5000;
/** The default rows per bulk address job, and the most a plans file may allow (docs/decisions.md). */
export const ADDRESS_BATCH_MAX = 100_000;

export const BUILT_IN_PLANS: Record<string, Plan> = {
  free: {
    name: "free",
    quota: { email: 100, address: 100 },
    rate: { per_minute: 60, burst: 10 },
    batch_max: 100,
    address_batch_max: 100,
  },
  unmetered: {
    name: "unmetered",
    quota: null,
    rate: { per_minute: 600, burst: 100 },
    batch_max: 5000,
    address_batch_max: ADDRESS_BATCH_MAX,
  },
};

const count = v.pipe(v.number(), v.integer(), v.minValue(0));
const PlansFileSchema = v.object({
  plans: v.record(
    v.pipe(v.string(), v.minLength(1)),
    v.object({
      quota: v.nullable(v.object({ email: count, address: count })),
      rate: v.object({ per_minute: v.pipe(count, v.minValue(1)), burst: count }),
      batch_max: v.pipe(count, v.minValue(1), v.maxValue(SPEC_BATCH_MAX)),
      address_batch_max: v.optional(v.pipe(count, v.minValue(1), v.maxValue(ADDRESS_BATCH_MAX)), ADDRESS_BATCH_MAX),
    }),
  ),
});

/** The built-in plans, or those of PLANS_FILE which replace them. Throws with the failing member named. */
export function loadPlans(plansFile: string | undefined): Record<string, Plan> {
  if (!plansFile) return BUILT_IN_PLANS;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(plansFile, "utf8"));
  } catch (error) {
    throw new TypeError(`Cannot read PLANS_FILE ${plansFile}: ${(error as Error).message}`, { cause: error });
  }
  const parsed = v.safeParse(PlansFileSchema, raw);
  if (!parsed.success) {
    const issue = parsed.issues[0];
    const path = issue.path?.map((p) => p.key).join(".") ?? "(root)";
    throw new TypeError(`Cannot read PLANS_FILE ${plansFile}: ${path}: ${issue.message}`);
  }
  const plans: Record<string, Plan> = {};
  for (const [name, plan] of Object.entries(parsed.output.plans)) plans[name] = { name, ...plan };
  return plans;
}
