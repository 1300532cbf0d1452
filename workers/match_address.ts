// Piscina worker: one AddressMatcher per thread over the shared index buffers (no copy), then one batch of matches
// per task (see src/address/batcher.ts). Loaded compiled (npm start) or through workers/tsx_bootstrap.mjs (src/paths.ts);
// either way piscina needs this module's default export.
import { workerData } from "node:worker_threads";
import { matcherFromShared, type SharedMatcherData } from "../src/address/match.ts";
import type { AddressInput, AddressVerification } from "../src/address/types.ts";

const matcher = await matcherFromShared(workerData as SharedMatcherData);

export default function matchAddresses(task: { inputs: AddressInput[] }): AddressVerification[] {
  return task.inputs.map((input) => matcher.match(input));
}
