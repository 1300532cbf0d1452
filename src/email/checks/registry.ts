// The pipeline, cheapest first, in the order the spec fixes. Adding a check: one file and one line here.
import { CHECK_NAMES, type CheckName } from "../vocabulary.ts";
import type { Check } from "./context.ts";
import { catchAll } from "./catch_all.ts";
import { disposable } from "./disposable.ts";
import { mx } from "./mx.ts";
import { providerRules } from "./provider_rules.ts";
import { role } from "./role.ts";
import { smtp } from "./smtp.ts";
import { syntax } from "./syntax.ts";
import { typo } from "./typo.ts";

export const CHECKS: ReadonlyArray<{ name: CheckName; run: Check }> = [
  { name: "syntax", run: syntax },
  { name: "provider_rules", run: providerRules },
  { name: "typo", run: typo },
  { name: "disposable", run: disposable },
  { name: "role", run: role },
  { name: "mx", run: mx },
  { name: "smtp", run: smtp },
  { name: "catch_all", run: catchAll },
];

// The registry runs in the spec's order, one entry per check: a wrong edit fails at load, not in an answer.
if (CHECKS.map((c) => c.name).join() !== CHECK_NAMES.join()) {
  throw new Error(`Cannot load the email checks: the registry must list ${CHECK_NAMES.join(", ")} in that order`);
}
