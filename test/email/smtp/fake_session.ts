// A pooled SMTP session with no socket behind it, for the pool's unit tests: it greets, answers every command with
// 221, and writes what it was sent and when it closed into `log` (as "name:LINE" and "name:closed"), so that a test
// reads which session the pool used, reused or closed.
import type { SmtpConnection } from "../../../src/email/smtp/dialer.ts";
import type { SmtpSession } from "../../../src/email/smtp/pool.ts";
import { parseReply } from "../../../src/email/smtp/reply.ts";

export function fakeSession(log: string[], name: string): SmtpSession {
  let closed = false;
  const conn: SmtpConnection = {
    get closed() {
      return closed;
    },
    read: async () => parseReply(["220 hi"])!,
    command: async (line) => {
      log.push(`${name}:${line}`);
      return parseReply(["221 bye"])!;
    },
    close: () => {
      if (!closed) log.push(`${name}:closed`);
      closed = true;
    },
    waitClosed: async () => {},
  };
  return { conn, target: { host: "mx", address: "93.184.216.34", port: 25 }, smtpUtf8: false };
}

/** A signal that never aborts. */
export const live = () => new AbortController().signal;
