// A dialer that replays scripted SMTP replies without sockets, for unit tests of the prober.
import { SmtpError } from "../../src/email/errors.ts";
import type { SmtpConnection, SmtpDialer, SmtpTarget } from "../../src/email/smtp/dialer.ts";
import { parseReply, type SmtpReply } from "../../src/email/smtp/reply.ts";

/** Answers one command line with raw reply text ("250 ok", or "250-a\n250 b"). */
export type Responder = (line: string, conn: { id: number; commands: string[] }) => string;

export interface FakeDialer extends SmtpDialer {
  /** Every command sent, per connection. */
  readonly connections: Array<{ id: number; target: SmtpTarget; commands: string[] }>;
}

function reply(text: string): SmtpReply {
  return parseReply(text.split("\n"))!;
}

export function createFakeDialer(options: {
  banner?: string;
  respond: Responder;
  refuse?: (t: SmtpTarget) => boolean;
}): FakeDialer {
  const { banner = "220 fake ESMTP", respond, refuse = () => false } = options;
  const connections: FakeDialer["connections"] = [];
  return {
    connections,
    async dial(target) {
      if (refuse(target)) throw new SmtpError("SMTP_CONNECT", `Cannot connect to ${target.host}: ECONNREFUSED`);
      const record = { id: connections.length, target, commands: [] as string[] };
      connections.push(record);
      let closed = false;
      let greeted = false;
      const conn: SmtpConnection = {
        get closed() {
          return closed;
        },
        async read() {
          if (closed) throw new SmtpError("SMTP_DROPPED", "closed");
          greeted = true;
          return reply(banner);
        },
        async command(line) {
          if (closed || !greeted) throw new SmtpError("SMTP_DROPPED", "closed");
          record.commands.push(line);
          return reply(respond(line, record));
        },
        close() {
          closed = true;
        },
        async waitClosed() {},
      };
      return conn;
    },
  };
}
