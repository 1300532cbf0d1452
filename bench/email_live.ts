// email_live: the whole email pipeline (syntax → DNS → SMTP → catch-all) against loopback peers started here:
// dnsmasq for DNS and fast SMTP peers on 127.0.4.x:25. Bounded in count and time; prints one comparable line.
// raw_req_s is the baseline measured in the same run: bare SMTP dialogues (connect, EHLO, MAIL, RCPT, QUIT) against
// the same peers with the same concurrency, without DNS, checks or connection limits.
// A second line, email_live_socks5, runs the same load through a SOCKS5 proxy on loopback (test/email/socks_proxy.ts,
// SMTP_PROXY): `ratio` is its req_s over the direct one, `proxied` the connections that went through the proxy over
// those the peers saw.
//   npx tsx bench/email_live.ts            (BENCH_N, BENCH_SECONDS, BENCH_CONCURRENCY to change the bounds)
import { loadConfig } from "../src/config.ts";
import { createEmailEngine } from "../src/email/engine.ts";
import { createNetDialer } from "../src/email/smtp/dialer.ts";
import {
  DNSMASQ_MISSING,
  findDnsmasq,
  startDnsmasq,
  startFastSmtpPeer,
  type Dnsmasq,
  type SmtpPeer,
} from "../test/email/peers.ts";
import { startSocksProxy, type TestSocksProxy } from "../test/email/socks_proxy.ts";

const N = Number(process.env.BENCH_N ?? 5000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const DOMAINS = 8;
const ZONE = "vrai-bench.net";

/** Runs `task` with bounded concurrency until N calls or the time bound; returns sorted latencies and elapsed s. */
async function drive(task: (i: number) => Promise<unknown>): Promise<{ latencies: number[]; elapsed: number }> {
  const latencies: number[] = [];
  const deadline = performance.now() + SECONDS * 1000;
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < N && performance.now() < deadline) {
        const i = next++;
        const t0 = performance.now();
        await task(i);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  return { latencies: latencies.sort((a, b) => a - b), elapsed };
}

async function main(): Promise<void> {
  if (findDnsmasq() === null) {
    console.log(`email_live skipped=1 reason="${DNSMASQ_MISSING}" node=${process.version}`);
    return;
  }
  const domains = Array.from({ length: DOMAINS }, (_, i) => ({
    name: `d${i}.${ZONE}`,
    mx: `mx.d${i}.${ZONE}`,
    ip: `127.0.4.${10 + i}`,
  }));
  let dns: Dnsmasq | null = null;
  const peers: SmtpPeer[] = [];
  let proxy: TestSocksProxy | null = null;
  try {
    dns = await startDnsmasq({
      zones: [ZONE],
      mx: domains.map((d) => ({ domain: d.name, exchange: d.mx, priority: 10 })),
      hosts: domains.map((d) => ({ name: d.mx, address: d.ip })),
    });
    for (const d of domains)
      peers.push(await startFastSmtpPeer({ host: d.ip, mailboxes: Array.from({ length: 50 }, (_, i) => `user${i}`) }));
    const config = {
      ...loadConfig({}),
      dnsServers: [dns.server],
      probeAllowCidrs: ["127.0.0.0/8"],
      probeTimeoutMs: 2000,
      emailDeadlineMs: 5000,
    };
    const engine = createEmailEngine(config);
    // Three in four addresses exist; the rest are unknown users (a realistic mix of 250 and 550 answers).
    const address = (i: number) => `user${i % 4 === 3 ? 1000 + i : i % 50}@${domains[i % DOMAINS]!.name}`;
    for (let i = 0; i < DOMAINS * 2; i++) await engine.verify(address(i)); // warm-up: MX and catch-all caches

    const { latencies, elapsed } = await drive((i) => engine.verify(address(i)));
    await engine.close();

    const dialer = createNetDialer({ idleTimeoutMs: 10_000 });
    const raw = await drive(async (i) => {
      const signal = AbortSignal.timeout(2000);
      const d = domains[i % DOMAINS]!;
      const conn = await dialer.dial({ host: d.mx, address: d.ip, port: 25 }, { signal });
      await conn.read({ signal });
      for (const line of [
        "EHLO bench.example",
        "MAIL FROM:<verify@bench.example>",
        `RCPT TO:<${address(i)}>`,
        "QUIT",
      ]) {
        await conn.command(line, { signal });
      }
      conn.close();
    });

    const pct = (sorted: number[], p: number) =>
      sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
    const directReqS = latencies.length / elapsed;
    console.log(
      `email_live n=${latencies.length} req_s=${Math.round(directReqS)} p50=${pct(latencies, 50).toFixed(2)}ms p99=${pct(latencies, 99).toFixed(2)}ms raw_req_s=${Math.round(raw.latencies.length / raw.elapsed)} node=${process.version}`,
    );

    // The same load through a SOCKS5 proxy: every connection is one more hop and one more handshake.
    proxy = await startSocksProxy({ host: "127.0.4.1", auth: { user: "bench", pass: "bench" } });
    const viaProxy = createEmailEngine({ ...config, smtpProxy: proxy.url });
    for (let i = 0; i < DOMAINS * 2; i++) await viaProxy.verify(address(i));
    const peersBefore = peers.reduce((n, p) => n + p.connections, 0);
    const proxyBefore = proxy.connections;
    const socks = await drive((i) => viaProxy.verify(address(i)));
    await viaProxy.close();
    const peersOpened = peers.reduce((n, p) => n + p.connections, 0) - peersBefore;
    const socksReqS = socks.latencies.length / socks.elapsed;
    console.log(
      `email_live_socks5 n=${socks.latencies.length} req_s=${Math.round(socksReqS)} p50=${pct(socks.latencies, 50).toFixed(2)}ms p99=${pct(socks.latencies, 99).toFixed(2)}ms ratio=${(socksReqS / directReqS).toFixed(2)} proxied=${proxy.connections - proxyBefore}/${peersOpened} node=${process.version}`,
    );
  } finally {
    await Promise.all(peers.map((p) => p.stop()));
    await proxy?.stop();
    await dns?.stop();
  }
}

await main();
