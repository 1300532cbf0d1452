// test-scope: once
// (Answers over the Paris file, which no runtime changes: CI runs this file on its recommended runtime only.)
// POST /v1/address and /v1/signup over HTTP with live keys, on the real Paris BAN file: every address verdict and
// reason of the spec, as a client sees them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { startTestServer } from "../helpers/server.ts";
import { createAddressService } from "../../src/address/service.ts";
import { createEmailEngine } from "../../src/email/engine.ts";

const PARIS = resolve("../shared/data/ban/adresses-75.csv.gz");
const skip = existsSync(PARIS) ? false : `real Paris BAN file absent at ${PARIS}: address HTTP tests skipped`;

test("POST /v1/address answers every verdict and reason on the real Paris file", { skip }, async (t) => {
  const server = await startTestServer(t, {
    env: {
      BAN_SOURCE: dirname(PARIS),
      BAN_DEPARTEMENTS: "75",
      BAN_INDEX_DIR: mkdtempSync(join(tmpdir(), "vrai-ban-")),
      WORKERS: "1",
    },
    engines: async (_core, config) => {
      const address = await createAddressService(config);
      return { address, email: createEmailEngine(config) };
    },
  });
  server.onClose(() => (server.services.address as unknown as { close(): Promise<void> }).close());
  const key = await server.key({ plan: "unmetered" });
  const ready = await (await server.get("/readyz")).json();
  assert.equal(ready.checks.address_index, true);

  const cases: Array<[Record<string, string>, string, string[]]> = [
    [{ line: "150 rue de rivoli 75001 paris" }, "deliverable", []],
    [{ house_number: "150", street: "R DE RIVOLI", postcode: "75001", city: "PARIS" }, "deliverable", []],
    [{ line: "150 Rue de Rivili, 75001 Paris" }, "corrected", ["street_corrected"]],
    [{ line: "12 Rue de Rivoli, 75001 Paris" }, "corrected", ["postcode_corrected"]],
    [{ line: "150 rue de rivoli 75001 Pariss" }, "corrected", ["city_corrected"]],
    [{ line: "Rue de Rivoli, 75001 Paris" }, "incomplete", ["missing_house_number"]],
    [{ line: "150 rue de Rivoli, Paris" }, "incomplete", ["missing_postcode"]],
    [{ line: "150 rue de Rivoli 75001" }, "incomplete", ["missing_city"]],
    [{ house_number: "150", postcode: "75001", city: "Paris" }, "incomplete", ["missing_street"]],
    [{ line: "12 rue des Zorglubs Imaginaires, 75001 Paris" }, "nonexistent", ["street_not_found"]],
    [{ line: "9999 rue de Rivoli 75001 Paris" }, "nonexistent", ["house_number_out_of_range"]],
    [{ line: "12 rue des Zorglubs 75099 Paris" }, "nonexistent", ["postcode_city_mismatch", "street_not_found"]],
    [{ line: "150 rue de Rivoli 75001 Paris", country: "DE" }, "unknown", ["country_not_covered"]],
    [{ line: "1 rue de la République 69001 Lyon" }, "unknown", ["postcode_not_covered"]],
  ];
  for (const [input, verdict, reasons] of cases) {
    const response = await server.post("/v1/address", key, input);
    assert.equal(response.status, 200, JSON.stringify(input));
    const body = await response.json();
    assert.equal(body.verdict, verdict, `${JSON.stringify(input)} → ${JSON.stringify(body)}`);
    assert.deepEqual([...body.reasons].sort(), [...reasons].sort(), JSON.stringify(input));
    assert.equal(typeof body.duration_ms, "number");
  }

  const exact = await (await server.post("/v1/address", key, { line: "150 rue de rivoli 75001 paris" })).json();
  assert.equal(exact.normalized.line, "150 Rue de Rivoli, 75001 Paris");
  assert.equal(exact.normalized.street, "Rue de Rivoli");
  assert.equal(exact.normalized.city, "Paris");
  assert.equal(exact.normalized.country, "FR");
  assert.ok(Math.abs(exact.normalized.latitude - 48.86) < 0.02 && Math.abs(exact.normalized.longitude - 2.34) < 0.03);
  const typo = await (await server.post("/v1/address", key, { line: "150 Rue de Rivili, 75001 Paris" })).json();
  assert.equal(typo.normalized.street, "Rue de Rivoli", "the spec: a misspelt street comes back corrected");

  const signup = await server.post("/v1/signup", key, {
    email: "jane@gmial.com",
    address: { line: "150 Rue de Rivili, 75001 Paris" },
  });
  const combined = await signup.json();
  assert.equal(combined.verdict, "undeliverable");
  assert.deepEqual(combined.reasons, ["email.domain_typo", "address.street_corrected"]);
  assert.equal(combined.signals.address.normalized, "150 Rue de Rivoli, 75001 Paris");
  assert.equal(combined.signals.email.suggestion, "jane@gmail.com");
});
