// What one SMTP question (a recipient, or the catch-all recipient) came to: the server's classified reply, a time-out,
// or no answer to be had. A file of its own because both the prober, which makes outcomes, and the MX health record,
// which remembers the last refusal of a host, speak of it; neither imports the other for it.
import type { ReplyCategory, SmtpReply } from "./reply.ts";

export type ProbeOutcome =
  | { kind: "reply"; category: ReplyCategory; reply: SmtpReply; host: string }
  | { kind: "timeout" }
  | { kind: "unavailable"; why: string };
