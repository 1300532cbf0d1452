// The service's version as package.json says: shown on the page and in GET /, read once.
import { readFileSync } from "node:fs";
import { projectFile } from "./paths.ts";

let version: string | undefined;

export function serviceVersion(): string {
  version ??= (JSON.parse(readFileSync(projectFile("package.json"), "utf8")) as { version: string }).version;
  return version;
}
