// npm run bench: every benchmark script in bench/, one after the other, each in its own process so that one's heap
// and threads do not colour the next. Each prints its own `name key=value ...` lines.
import { readdirSync } from "node:fs";
import { spawnSync } from "node:child_process";

const only = process.argv.slice(2);
const scripts = readdirSync(new URL(".", import.meta.url))
  .filter((f) => f.endsWith(".ts") && f !== "run.ts")
  .filter((f) => only.length === 0 || only.some((o) => f.startsWith(o)))
  .sort();
let failed = 0;
for (const script of scripts) {
  const result = spawnSync(process.execPath, ["--import", "tsx", `bench/${script}`], {
    stdio: "inherit",
    cwd: new URL("..", import.meta.url).pathname,
  });
  if (result.status !== 0) {
    failed++;
    console.log(`${script.replace(/\.ts$/, "")} failed exit=${result.status}`);
  }
}
process.exit(failed > 0 ? 1 : 0);
