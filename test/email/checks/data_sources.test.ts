// Every entry of data/email/*.json says where it comes from, in one shape across files:
// { ..., why, source: { url, date } }, and no _comment key anywhere.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";

const dir = new URL("../../../data/email/", import.meta.url);
const files = readdirSync(dir).filter((f) => f.endsWith(".json"));

function entries(value: unknown): Array<Record<string, unknown>> {
  const top = value as Record<string, unknown>;
  return Object.entries(top)
    .filter(([key]) => key !== "description")
    .flatMap(([key, list]) => {
      assert.ok(Array.isArray(list), `${key} should be a list of entries`);
      return list as Array<Record<string, unknown>>;
    });
}

for (const file of files) {
  test(`data/email/${file} gives every entry a why and a source {url, date}, and has no _comment`, () => {
    const text = readFileSync(new URL(file, dir), "utf8");
    assert.ok(!text.includes('"_comment"'), "no _comment keys");
    const json = JSON.parse(text) as Record<string, unknown>;
    assert.equal(typeof json.description, "string");
    for (const entry of entries(json)) {
      const label = JSON.stringify(entry).slice(0, 80);
      assert.equal(typeof entry.why, "string", `${label}: why`);
      const source = entry.source as { url?: unknown; date?: unknown } | undefined;
      assert.ok(
        source !== undefined && Object.keys(source).sort().join() === "date,url",
        `${label}: source {url, date}`,
      );
      assert.match(String(source.url), /^https:\/\/\S+$/, `${label}: source.url`);
      assert.match(String(source.date), /^\d{4}-\d{2}-\d{2}$/, `${label}: source.date`);
    }
  });
}
