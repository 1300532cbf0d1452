// Interleaved rounds: a bench line and its baseline measured in turn, several times, so that a machine whose speed
// drifts within a minute (the other tenants of a virtual machine) moves both sides of each ratio alike. What is
// printed is the round whose ratio is the median, beside the range of all the rounds' ratios.
import type { LoadResult } from "./load.ts";

export interface Round {
  result: LoadResult;
  /** The baseline measured in the same round, just before. */
  baseline: LoadResult;
}

const ratio = (round: Round) => round.result.reqPerSec / round.baseline.reqPerSec;

/** The median round by ratio to its baseline, and the ratios' range as `lo-hi%`. */
export function medianRound(rounds: readonly Round[]): { round: Round; range: string } {
  if (rounds.length === 0) throw new RangeError("Cannot pick a median round: no round was measured");
  const sorted = [...rounds].sort((a, b) => ratio(a) - ratio(b));
  const percent = (round: Round) => Math.round(ratio(round) * 100);
  return {
    round: sorted[Math.floor(sorted.length / 2)]!,
    range: `${percent(sorted[0]!)}-${percent(sorted[sorted.length - 1]!)}%`,
  };
}
