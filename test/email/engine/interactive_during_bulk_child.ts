// The engine side of interactive_during_bulk.test.ts, in a process of its own so that it runs with the heap under
// pressure (the test starts it with --max-semi-space-size=1 and a full collection every 500 ms) while the SMTP peers
// stay in the test's process, where they count connections. A bulk chunk through verifyMany (the job runner's path)
// at each peer; once the test writes "go" (it saw the chunk hold the peers' connections), single calls through
// verify() (the path of POST /v1/email and the signup) for other mailboxes of the same MX hosts. Prints one JSON line
// when the single calls are answered, and another when the bulk chunk is.
import { createInterface } from "node:readline";
import { loadConfig } from "../../../src/config.ts";
import { createEmailEngine } from "../../../src/email/engine.ts";
import type { EmailResult } from "../../../src/email/verifier.ts";

export interface ChildSpec {
  mx: Array<{ domain: string; ip: string }>;
  bulk: string[];
  singles: string[];
  probeTimeoutMs: number;
  emailDeadlineMs: number;
  connectionsPerMx: number;
}

const spec = JSON.parse(process.argv[2]!) as ChildSpec;
const config = {
  ...loadConfig({}),
  probeAllowCidrs: ["127.0.0.0/8"],
  smtpPort: 25,
  probeTimeoutMs: spec.probeTimeoutMs,
  emailDeadlineMs: spec.emailDeadlineMs,
};
const ipOf = new Map(spec.mx.map(({ domain, ip }) => [`mx.${domain}`, ip]));
const engine = createEmailEngine(config, {
  maxConnectionsPerMx: spec.connectionsPerMx,
  // MX answers from a table (the DNS boundary); the SMTP side is real.
  resolver: {
    async resolveMx(domain) {
      return [{ exchange: `mx.${domain}`, priority: 10 }];
    },
    async resolveAddresses(host) {
      return [ipOf.get(host)!];
    },
  },
});

const bulkResults: EmailResult[] = [];
const bulk = engine.verifyMany(spec.bulk, {
  onResult: async (result) => {
    bulkResults.push(result);
  },
});
const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
await lines.next(); // "go"
const singles = await Promise.all(
  spec.singles.map(async (email) => {
    const started = performance.now();
    const { verdict, reasons } = await engine.verify(email);
    return { email, verdict, reasons, ms: Math.round(performance.now() - started) };
  }),
);
process.stdout.write(`${JSON.stringify({ singles, bulkAnsweredBefore: bulkResults.length })}\n`);
await bulk;
process.stdout.write(
  `${JSON.stringify({ bulk: bulkResults.map(({ email, verdict, reasons }) => ({ email, verdict, reasons })) })}\n`,
);
await engine.close();
process.exit(0);
