// BAN sources as the importer meets them: gzipped or plain CSV, told by the first bytes and not by
// the name, from a path, a BAN_SOURCE directory or a URL; downloads through HTTP_PROXY (or http_proxy) unless
// NO_PROXY names the host, shown with a loopback proxy that records the absolute-URI requests it forwards.
import assert from "node:assert/strict";
import { once } from "node:events";
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer, request as forward, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { BanIndex } from "../../src/address/index/ban_index.ts";
import { isGzip } from "../../src/address/index/decompress.ts";
import { importBan } from "../../src/address/index/import.ts";
import { readPackedFile } from "../../src/address/packed_file.ts";
import { runBanImportCli } from "../helpers/process.ts";
import { tempDir, type TempDir } from "../helpers/temp_dir.ts";
import { banCsv, banCsvGz, COMMUNES } from "./ban_rows.ts";

/** Rows of every generated file: 25 streets of 20 numbers. */
const ROWS = 500;
const PROXY_VARIABLES = ["HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "NO_PROXY", "no_proxy"] as const;

function addressesIn(indexDir: string, departement = "01"): number {
  const index = new BanIndex(readPackedFile(join(indexDir, `ban-${departement}.idx`)));
  assert.equal(index.departement, departement);
  return index.header.addressCount;
}

async function listen(server: Server): Promise<string> {
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

test("isGzip() tells gzip by its magic bytes 1f 8b", () => {
  const cases: Array<[string, Uint8Array, boolean]> = [
    ["a gzip stream", banCsvGz(COMMUNES.ambérieu), true],
    ["a CSV header", Buffer.from(banCsv(COMMUNES.ambérieu)), false],
    ["one byte of gzip", Uint8Array.of(0x1f), false],
    ["nothing", new Uint8Array(0), false],
  ];
  for (const [name, bytes, expected] of cases) assert.equal(isGzip(bytes), expected, name);
});

describe("importBan() reads gzipped and plain CSV alike", () => {
  let temp: TempDir;
  let ban: Server;
  let proxy: Server;
  let banUrl: string;
  let proxyUrl: string;
  /** Absolute-URI targets the proxy forwarded. */
  const proxied: string[] = [];
  const saved = new Map<string, string | undefined>();

  before(async () => {
    temp = tempDir("vrai-ban-sources-");
    for (const v of PROXY_VARIABLES) {
      saved.set(v, process.env[v]);
      delete process.env[v];
    }
    // /gz/: as published; /plain/: plain CSV under the .csv.gz name; /csv/: only adresses-01.csv.
    const files: Record<string, Buffer> = {
      "/gz/adresses-01.csv.gz": banCsvGz(COMMUNES.ambérieu),
      "/plain/adresses-01.csv.gz": Buffer.from(banCsv(COMMUNES.ambérieu)),
      "/csv/adresses-01.csv": Buffer.from(banCsv(COMMUNES.ambérieu)),
    };
    ban = createServer((req, res) => {
      const body = files[req.url ?? ""];
      if (body === undefined) res.writeHead(404).end();
      else res.writeHead(200, { "content-length": body.length }).end(body);
    });
    banUrl = await listen(ban);
    // A plain HTTP proxy: it receives `GET http://host:port/path` and forwards it.
    proxy = createServer((req, res) => {
      proxied.push(req.url ?? "");
      const target = new URL(req.url ?? "");
      const upstream = forward(target, { method: req.method, headers: { host: target.host } }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      upstream.on("error", () => res.writeHead(502).end());
      req.pipe(upstream);
    });
    proxyUrl = await listen(proxy);
  });
  after(() => {
    for (const [v, value] of saved) {
      if (value === undefined) delete process.env[v];
      else process.env[v] = value;
    }
    ban?.close();
    proxy?.close();
    temp?.remove();
  });

  test("a path: the bytes decide, not the name", async () => {
    const files: Array<[string, Buffer | string]> = [
      ["extract.csv.gz", banCsvGz(COMMUNES.ambérieu)],
      ["extract.csv", banCsv(COMMUNES.ambérieu)],
      ["plain-named-gz.csv.gz", banCsv(COMMUNES.ambérieu)],
      ["gzipped-named-plain.csv", banCsvGz(COMMUNES.ambérieu)],
    ];
    for (const [name, bytes] of files) {
      const path = join(temp.path, name);
      writeFileSync(path, bytes);
      const indexDir = join(temp.path, `index-${name}`);
      const [result] = await importBan(path, { banSource: "/nowhere", indexDir });
      assert.equal(result?.departement, "01", name);
      assert.equal(result?.rows, ROWS, name);
      assert.equal(addressesIn(indexDir), ROWS, name);
    }
  });

  test("a BAN_SOURCE directory holding adresses-01.csv (plain) serves département 01", async () => {
    const source = join(temp.path, "source");
    mkdirSync(source);
    writeFileSync(join(source, "adresses-01.csv"), banCsv(COMMUNES.ambérieu));
    const indexDir = join(temp.path, "index-dir-source");
    await importBan("01", { banSource: source, indexDir });
    assert.equal(addressesIn(indexDir), ROWS);
  });

  test("a URL: gzip or plain told by the bytes, and adresses-01.csv when there is no .csv.gz", async () => {
    for (const base of ["gz", "plain", "csv"]) {
      const indexDir = join(temp.path, `index-url-${base}`);
      await importBan("01", { banSource: `${banUrl}/${base}`, indexDir });
      assert.equal(addressesIn(indexDir), ROWS, base);
    }
    assert.deepEqual(proxied, [], "no proxy variable set: direct");
  });

  test("the download goes through HTTP_PROXY or http_proxy, and around it for a host in NO_PROXY", async () => {
    const cases: Array<{ env: Partial<Record<(typeof PROXY_VARIABLES)[number], string>>; viaProxy: boolean }> = [
      { env: { HTTP_PROXY: proxyUrl }, viaProxy: true },
      { env: { http_proxy: proxyUrl }, viaProxy: true },
      { env: { HTTP_PROXY: proxyUrl, NO_PROXY: "example.org,127.0.0.1" }, viaProxy: false },
      { env: { http_proxy: proxyUrl, no_proxy: "127.0.0.1" }, viaProxy: false },
    ];
    for (const [i, { env, viaProxy }] of cases.entries()) {
      for (const v of PROXY_VARIABLES) delete process.env[v];
      Object.assign(process.env, env);
      proxied.length = 0;
      const indexDir = join(temp.path, `index-proxy-${i}`);
      await importBan("01", { banSource: `${banUrl}/gz`, indexDir });
      assert.equal(addressesIn(indexDir), ROWS, JSON.stringify(env));
      assert.deepEqual(proxied, viaProxy ? [`${banUrl}/gz/adresses-01.csv.gz`] : [], JSON.stringify(env));
    }
    for (const v of PROXY_VARIABLES) delete process.env[v];
  });

  test("`npm run ban -- import PATH` takes a plain .csv and a .csv.gz", async () => {
    for (const [name, bytes] of [
      ["adresses-01.csv", banCsv(COMMUNES.ambérieu)],
      ["adresses-01.csv.gz", banCsvGz(COMMUNES.ambérieu)],
    ] as const) {
      const path = join(temp.path, "cli", name);
      mkdirSync(join(temp.path, "cli"), { recursive: true });
      writeFileSync(path, bytes);
      const indexDir = join(temp.path, `index-cli-${name}`);
      const { code, output: out } = await runBanImportCli(path, indexDir);
      assert.equal(code, 0, out);
      assert.match(out, new RegExp(`imported 01: ${ROWS} addresses`));
      assert.equal(addressesIn(indexDir), ROWS, name);
    }
  });
});
