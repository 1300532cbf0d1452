// DNS failures from a real DNS server on loopback (npm dns2, scripted): SERVFAIL and REFUSED answers are
// probe_unavailable with the mx check inconclusive, never an undeliverable verdict.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { loadConfig } from "../../../src/config.ts";
import { createEmailEngine } from "../../../src/email/engine.ts";

const require = createRequire(import.meta.url);
const { createServer, Packet } = require("dns2") as {
  createServer(options: { udp: boolean; handle(request: unknown, send: (response: unknown) => void): void }): {
    listen(options: { udp: { port: number; address: string } }): Promise<void>;
    addresses(): { udp: { port: number } };
    close(): Promise<void>;
  };
  Packet: { createResponseFromRequest(request: unknown): { header: { rcode: number } } };
};

for (const [name, rcode] of [
  ["SERVFAIL", 2],
  ["REFUSED", 5],
] as const) {
  test(`verify() answers probe_unavailable when the DNS server answers ${name}`, async (t) => {
    const server = createServer({
      udp: true,
      handle(request, send) {
        const response = Packet.createResponseFromRequest(request);
        response.header.rcode = rcode;
        send(response);
      },
    });
    await server.listen({ udp: { port: 0, address: "127.0.0.1" } });
    t.after(() => server.close());
    const { port } = server.addresses().udp;
    const engine = createEmailEngine(loadConfig({ DNS_SERVERS: `127.0.0.1:${port}`, PROBE_TIMEOUT_MS: "2000" }));
    t.after(() => engine.close());
    const r = await engine.verify("jane@broken-dns-vrai.com");
    assert.equal(r.verdict, "unknown");
    assert.deepEqual(r.reasons, ["probe_unavailable"]);
    assert.equal(r.checks.mx, "inconclusive");
    assert.equal(r.checks.smtp, "skipped");
  });
}
