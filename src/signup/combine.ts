// The signup verdict: the worst of its parts, never an average (spec), with the address verdict mapped onto the
// email scale first (docs/contract.md §4: corrected and incomplete count as risky).
import type { AddressVerdict, AddressVerification } from "../address/types.ts";
import type { EmailVerification } from "../email/types.ts";
import { VERDICTS, type Verdict } from "../email/vocabulary.ts";
import { worstOf } from "../verdicts/worst_of.ts";

export const ADDRESS_TO_COMBINED: Record<AddressVerdict, Verdict> = {
  deliverable: "deliverable",
  corrected: "risky",
  incomplete: "risky",
  nonexistent: "undeliverable",
  unknown: "unknown",
};

export interface SignupParts {
  email?: Pick<EmailVerification, "verdict" | "reasons" | "suggestion">;
  address?: Pick<AddressVerification, "verdict" | "reasons" | "normalized">;
}

export function combineSignup(parts: SignupParts) {
  const verdicts: Verdict[] = [];
  const reasons: string[] = [];
  const signals: Record<string, unknown> = {};
  if (parts.email) {
    const { verdict, reasons: r, suggestion } = parts.email;
    verdicts.push(verdict);
    reasons.push(...r.map((reason) => `email.${reason}`));
    signals.email = { verdict, reasons: r, suggestion: suggestion ?? null };
  }
  if (parts.address) {
    const { verdict, reasons: r, normalized } = parts.address;
    verdicts.push(ADDRESS_TO_COMBINED[verdict]);
    reasons.push(...r.map((reason) => `address.${reason}`));
    signals.address = { verdict, reasons: r, normalized: normalized?.line ?? null };
  }
  return { verdict: worstOf(VERDICTS, verdicts), reasons, signals };
}
