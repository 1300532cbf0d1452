// Role local parts (info@, sales@, postmaster@, accueil@, ne-pas-repondre@): the maintained npm list
// `role-based-email-addresses` for English ones, plus French ones from data/email/roles_fr.json (a source per entry).
// Never settles: a role mailbox may well exist, so the pipeline goes on and the verdict is at best risky.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { projectFile } from "../../paths.ts";
import type { CheckOutcome, ParsedEmail } from "../types.ts";
import type { CheckContext } from "./context.ts";

const require = createRequire(import.meta.url);
const french = JSON.parse(readFileSync(projectFile("data/email/roles_fr.json"), "utf8")) as {
  roles: Array<{ local: string }>;
};

/** Lower-case, accents folded (comptabilité → comptabilite), separators '-', '_' and '.' removed. */
function fold(local: string): string {
  return local.toLowerCase().normalize("NFD").replace(/\p{M}/gu, "").replace(/[-_.]/g, "");
}

// Folded, so that no-reply, no_reply, noreply and ne-pas-repondre, ne.pas.repondre, nepasrepondre all match.
const ROLES = new Set<string>([
  ...(require("role-based-email-addresses") as string[]).map(fold),
  ...french.roles.map((r) => fold(r.local)),
]);

/** True when the local part (without a '+tag', accents and separators folded) is a role name. Pure. */
export function isRoleAddress(email: ParsedEmail): boolean {
  // A local part that needs its quotes ("jean dupont") is nobody's role; one that does not was unquoted by syntax.
  if (email.quoted) return false;
  const plus = email.local.indexOf("+");
  return ROLES.has(fold(plus > 0 ? email.local.slice(0, plus) : email.local));
}

export async function role(ctx: CheckContext): Promise<CheckOutcome> {
  if (isRoleAddress(ctx.state.parsed!)) return { status: "fail", reasons: ["role_address"] };
  return { status: "pass" };
}
