// Piscina worker: one AddressMatcher per thread over the shared index buffers (no copy). A task is either a batch of
// calls (src/address/batcher.ts: inputs in, answers out) or a slice of a bulk job's chunk (src/address/chunk_answers.ts:
// texts in, texts out). Loaded compiled (npm start) or through workers/tsx_bootstrap.mjs (src/paths.ts); either way
// piscina needs this module's default export.
import { workerData } from "node:worker_threads";
import { answerSlice, type SliceAnswers } from "../src/address/chunk_answers.ts";
import { matcherFromShared, type SharedMatcherData } from "../src/address/match.ts";
import type { MatchTask } from "../src/address/pool.ts";
import type { AddressInput, AddressVerification } from "../src/address/types.ts";

const matcher = await matcherFromShared(workerData as SharedMatcherData);
const match = (input: AddressInput) => matcher.match(input);

export default function matchAddresses(task: MatchTask): AddressVerification[] | SliceAnswers {
  if ("slice" in task) return answerSlice(task.slice, match);
  return task.inputs.map(match);
}
