// Every package the project installs runs on the Node the project says it needs: package.json's `engines` floor is a
// promise to whoever runs `npm ci` there, and a dependency (development ones included) that asks for a newer Node
// breaks it with an EBADENGINE warning, or worse, code that fails on the floor.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import semver from "semver";

const ROOT = new URL("../../", import.meta.url);
const read = (file: string) => JSON.parse(readFileSync(new URL(file, ROOT), "utf8"));

test("every package of package-lock.json accepts the lowest Node that package.json's engines allow", () => {
  const floor = semver.minVersion(read("package.json").engines.node);
  assert.ok(floor, "package.json names a Node range");
  const packages = read("package-lock.json").packages as Record<string, { version?: string; engines?: unknown }>;
  const refusing = Object.entries(packages).flatMap(([path, { version, engines }]) => {
    const wanted = (engines as { node?: unknown } | undefined)?.node;
    // A few old packages write engines as an array; only a range string can refuse a version.
    if (typeof wanted !== "string" || semver.satisfies(floor, wanted)) return [];
    return [`${path.replace(/^node_modules\//, "")}@${version} needs Node ${wanted}`];
  });
  assert.ok(Object.keys(packages).length > 100, "the lock file lists the installed packages");
  assert.deepEqual(refusing, [], `on Node ${floor}`);
});
