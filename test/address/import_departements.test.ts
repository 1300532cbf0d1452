// A BAN file spanning several départements (the shape of the whole-country `adresses-france.csv.gz`) is read once
// into one index per département, with one builder in memory at a time when the file is sorted by INSEE code, and
// still correctly when it is not. The rows are generated here (invented streets in real communes, so that the
// nationwide reference resolves their postcodes and cities); nothing comes from a real BAN file.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { gzipSync } from "node:zlib";
import { loadConfig } from "../../src/config.ts";
import { BanIndex } from "../../src/address/index/ban_index.ts";
import { importBan, type ImportProgress } from "../../src/address/index/import.ts";
import { readPackedFile } from "../../src/address/packed_file.ts";
import { createAddressService, type AddressService } from "../../src/address/service.ts";
import { BAN_HEADER, COMMUNES as BAN_COMMUNES, type Commune, MAX_STREETS, banRows } from "./ban_rows.ts";

// In INSEE code order, as BAN exports are.
const COMMUNES: Commune[] = [BAN_COMMUNES.ambérieu, BAN_COMMUNES.ajaccio, BAN_COMMUNES.saintDenis];
// 50 streets × 240 numbers: 12,000 rows per département, so that progress is reported while each is read
// (every 16,384 rows) and the number of builders in memory can be seen.
const NUMBERS = 240;
const PER_DEPARTEMENT = MAX_STREETS * NUMBERS;

const rowsOf = (c: Commune): string[] => banRows(c, NUMBERS, MAX_STREETS);

function gzipCsv(file: string, lines: string[]): void {
  writeFileSync(file, gzipSync(`${[BAN_HEADER, ...lines].join("\n")}\n`));
}

describe("importBan() on a file spanning several départements", () => {
  let dir: string;
  let service: AddressService | undefined;
  const sortedProgress: ImportProgress[] = [];

  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), "vrai-france-"));
    gzipCsv(path.join(dir, "adresses-france.csv.gz"), COMMUNES.flatMap(rowsOf));
    // Round-robin over the départements: every row changes département, the worst order there is.
    const perCommune = COMMUNES.map(rowsOf);
    gzipCsv(
      path.join(dir, "shuffled.csv.gz"),
      perCommune[0]!.flatMap((_, i) => perCommune.map((rows) => rows[i]!)),
    );
  });
  after(async () => {
    await service?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test("`france` from BAN_SOURCE writes one index per département, one builder at a time", async () => {
    const indexDir = path.join(dir, "sorted");
    const results = await importBan("france", { banSource: dir, indexDir, onProgress: (p) => sortedProgress.push(p) });
    assert.deepEqual(
      results.map((r) => r.departement),
      ["01", "2A", "974"],
    );
    for (const [i, r] of results.entries()) {
      assert.equal(r.path, path.join(indexDir, `ban-${r.departement}.idx`));
      assert.equal(r.rows, PER_DEPARTEMENT);
      const index = new BanIndex(readPackedFile(r.path));
      assert.equal(index.departement, COMMUNES[i]!.departement);
      assert.equal(index.header.addressCount, PER_DEPARTEMENT);
      assert.deepEqual(
        index.header.communes.map((c) => c.code),
        [COMMUNES[i]!.insee],
      );
    }
    assert.deepEqual(readdirSync(indexDir).sort(), ["ban-01.idx", "ban-2A.idx", "ban-974.idx"]);
    // Progress came while reading (not only at the end), and never with more than one builder alive.
    assert.ok(sortedProgress.length >= 3, `${sortedProgress.length} progress reports`);
    assert.ok(
      sortedProgress.every((p) => p.builders === 1),
      JSON.stringify(sortedProgress.map((p) => p.builders)),
    );
    assert.equal(sortedProgress.at(-1)!.rows, 3 * PER_DEPARTEMENT);
    assert.ok(sortedProgress.at(-1)!.bytes > 0 && sortedProgress.at(-1)!.totalBytes > 0);
  });

  test("the engine then answers addresses of every imported département", async () => {
    const indexDir = path.join(dir, "sorted");
    service = await createAddressService({
      ...loadConfig({}),
      banSource: "/nowhere",
      banIndexDir: indexDir,
      banDepartements: ["01", "2A", "974"],
      workers: 1,
    });
    assert.equal(service.ready, true);
    for (const c of COMMUNES) {
      const r = await service.verify({ line: `12 Rue des Lilas, ${c.postcode} ${c.name}` });
      assert.equal(r.verdict, "deliverable", `${c.departement}: ${JSON.stringify(r)}`);
      // The coordinates prove the address came from this département's index (each commune has its own).
      assert.equal(r.normalized?.city, c.name, JSON.stringify(r));
      assert.equal(r.normalized?.latitude, Number((c.lat + 12e-5).toFixed(6)), JSON.stringify(r));
      const typo = await service.verify({ line: `7 allée des Erables ${c.postcode} ${c.name}` });
      assert.equal(typo.verdict, "deliverable", `${c.departement}: ${JSON.stringify(typo)}`);
      const beyond = await service.verify({ line: `${NUMBERS + 500} Rue des Lilas, ${c.postcode} ${c.name}` });
      assert.equal(beyond.verdict, "nonexistent", `${c.departement}: ${JSON.stringify(beyond)}`);
    }
    // A commune of a département the file does not have is still not covered.
    const lyon = await service.verify({ line: "12 Rue des Lilas, 69001 Lyon" });
    assert.deepEqual(lyon.reasons, ["postcode_not_covered"]);
  });

  test("a file not sorted by département gives the same indexes (read again, one builder per département)", async () => {
    const indexDir = path.join(dir, "shuffled");
    const progress: ImportProgress[] = [];
    const results = await importBan(path.join(dir, "shuffled.csv.gz"), {
      banSource: "/nowhere",
      indexDir,
      onProgress: (p) => progress.push(p),
    });
    assert.deepEqual(
      results.map((r) => [r.departement, r.rows]),
      COMMUNES.map((c) => [c.departement, PER_DEPARTEMENT]),
    );
    assert.ok(progress.some((p) => p.builders === 3));
    // Same content as the sorted import (the build date aside): streets, addresses and their order.
    for (const r of results) {
      const a = new BanIndex(readPackedFile(r.path));
      const b = new BanIndex(readPackedFile(path.join(dir, "sorted", `ban-${r.departement}.idx`)));
      assert.deepEqual({ ...a.header, builtAt: "" }, { ...b.header, builtAt: "" });
      assert.deepEqual(
        Buffer.from(a.ad.adNumber.buffer, a.ad.adNumber.byteOffset),
        Buffer.from(b.ad.adNumber.buffer, b.ad.adNumber.byteOffset),
      );
    }
    // No temporary file left by the abandoned first pass.
    assert.deepEqual(readdirSync(indexDir).sort(), ["ban-01.idx", "ban-2A.idx", "ban-974.idx"]);
  });

  test("an empty file with no département in its name is refused", async () => {
    const file = path.join(dir, "empty.csv.gz");
    gzipCsv(file, []);
    await assert.rejects(
      importBan(file, { banSource: "/nowhere", indexDir: path.join(dir, "empty") }),
      /no address rows in empty\.csv\.gz/,
    );
    assert.ok(!existsSync(path.join(dir, "empty")));
  });

  test("`npm run ban -- import france` prints one line per département", () => {
    const indexDir = path.join(dir, "cli");
    const run = spawnSync(process.execPath, ["--import", "tsx", "src/cli/ban.ts", "import", "france"], {
      env: { ...process.env, BAN_SOURCE: dir, BAN_INDEX_DIR: indexDir },
      encoding: "utf8",
    });
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(
      run.stdout
        .trim()
        .split("\n")
        .map((l) => l.split(":")[0]),
      ["imported 01", "imported 2A", "imported 974"],
    );
    assert.deepEqual(readdirSync(indexDir).sort(), ["ban-01.idx", "ban-2A.idx", "ban-974.idx"]);
  });
});
