// Role local parts (info@, sales@, postmaster@) from the maintained npm list `role-based-email-addresses`.
// Never settles: a role mailbox may well exist, so the pipeline goes on and the verdict is at best risky.
import { createRequire } from "node:module";
import type { CheckOutcome, ParsedEmail } from "../types.ts";
import type { CheckContext } from "./context.ts";

const require = createRequire(import.meta.url);
const ROLES = new Set<string>((require("role-based-email-addresses") as string[]).map((r) => r.toLowerCase()));

/** True when the local part (lower-cased, without a '+tag') is a role name. Pure. */
export function isRoleAddress(email: ParsedEmail): boolean {
  if (email.quoted) return false;
  const local = email.local.toLowerCase();
  const plus = local.indexOf("+");
  return ROLES.has(plus > 0 ? local.slice(0, plus) : local);
}

export async function role(ctx: CheckContext): Promise<CheckOutcome> {
  if (isRoleAddress(ctx.state.parsed!)) return { status: "fail", reasons: ["role_address"] };
  return { status: "pass" };
}
