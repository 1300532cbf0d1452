// `Prefer: wait=N` (RFC 7240 §4.3): the client would like an answer within N seconds. A verification call honours it
// by lowering its own deadline, never raising it above EMAIL_DEADLINE_MS, and says so with `Preference-Applied`.
// Preferences this server does not know, and malformed ones, are ignored (RFC 7240 §2).

export interface AppliedWait {
  /** The call's deadline: N seconds, at least 1 s, at most the server's. */
  deadlineMs: number;
  /** The value of `Preference-Applied: wait=…`: the seconds actually applied. */
  header: string;
}

/**
 * The first `wait` preference of a Prefer header (several header lines arrive joined by ", "), or null when there is
 * none or it is malformed. Only the first instance of a preference counts (RFC 7240 §2).
 *
 * @example
 * preferredWait("respond-async, wait=5"); // 5
 * preferredWait("wait=soon"); // null
 */
export function preferredWait(header: string | null): number | null {
  if (header === null) return null;
  for (const item of header.split(",")) {
    const [head = ""] = item.split(";");
    const eq = head.indexOf("=");
    const name = (eq < 0 ? head : head.slice(0, eq)).trim().toLowerCase();
    if (name !== "wait") continue;
    if (eq < 0) return null;
    const value = head
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, "$1");
    // delta-seconds (RFC 9111 §1.2.2): digits only.
    return /^\d{1,10}$/.test(value) ? Number(value) : null;
  }
  return null;
}

/** The deadline a `Prefer` header asks for under the server's `maxMs`, or null to keep the server's. */
export function applyPreferredWait(header: string | null, maxMs: number): AppliedWait | null {
  const wait = preferredWait(header);
  if (wait === null) return null;
  const seconds = Math.max(1, Math.min(wait, Math.ceil(maxMs / 1000)));
  return { deadlineMs: Math.min(seconds * 1000, maxMs), header: `wait=${seconds}` };
}
