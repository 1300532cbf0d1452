// Interleaved rounds: a bench line and its baseline measured in turn, several times, so that a machine whose speed
// drifts within a minute (the other tenants of a virtual machine) moves both sides of each ratio alike. What is
// printed is the round whose ratio is the median, beside the range of all the rounds' ratios.
import type { LoadResult } from "./load.ts";

export interface Round {
  result: LoadResult;
  /** The baseline measured in the same round, just before. */
  baseline: LoadResult;
}

/** The median of `rounds` by `ratioOf`, and the ratios' range as `lo-hi%`. */
export function medianBy<T>(rounds: readonly T[], ratioOf: (round: T) => number): { median: T; range: string } {
  if (rounds.length === 0) throw new RangeError("Cannot pick a median round: no round was measured");
  const sorted = [...rounds].sort((a, b) => ratioOf(a) - ratioOf(b));
  const percent = (round: T) => Math.round(ratioOf(round) * 100);
  return {
    median: sorted[Math.floor(sorted.length / 2)]!,
    range: `${percent(sorted[0]!)}-${percent(sorted[sorted.length - 1]!)}%`,
  };
}

/** The round whose ratio to its own baseline is the median, and the range of the rounds' ratios. */
export function medianRound(rounds: readonly Round[]): { round: Round; range: string } {
  const { median, range } = medianBy(rounds, (round) => round.result.reqPerSec / round.baseline.reqPerSec);
  return { round: median, range };
}
