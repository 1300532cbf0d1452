// How a process stops on SIGTERM or SIGINT: what serves and works is stopped in phases (the steps of a phase side by
// side), within one drain time (STOP_DRAIN_MS). No step can hold or end the stop: a step that fails (the database is
// gone, so the job runner cannot hand its items back) is logged and the next phase runs; a step still running when the
// drain time is over (a database that no longer answers) is left behind. What is left is safe to leave: a claimed job
// item returns to the queue when its lease runs out, a connection closes with the process.
import { deadline, untilAborted } from "./async/deadline.ts";
import type { Logger } from "./log.ts";

export interface StopStep {
  name: string;
  stop(): Promise<unknown> | unknown;
}

/**
 * The part of the drain time that requests in flight and the job runner's probes get to end on their own; the rest is
 * for handing job items back and closing the stores, which take milliseconds when the database answers.
 */
export function inFlightShare(drainMs: number): number {
  return drainMs - Math.floor(drainMs / 4);
}

/**
 * Runs `phases` in order, the steps of one phase together, within `drainMs`. Resolves, never rejects, with the names of
 * the steps that failed or had not ended when the time was up.
 */
export async function stopInPhases(
  phases: ReadonlyArray<ReadonlyArray<StopStep>>,
  options: { drainMs: number; log: Logger },
): Promise<string[]> {
  const { drainMs, log } = options;
  const limit = deadline(drainMs, { what: "stop" });
  const left: string[] = [];
  try {
    for (const phase of phases) {
      if (limit.signal.aborted) {
        left.push(...phase.map((step) => step.name));
        continue;
      }
      await Promise.all(
        phase.map(async (step) => {
          try {
            const ended = await untilAborted(
              Promise.resolve().then(() => step.stop()),
              limit.signal,
            );
            if (ended === "aborted") {
              left.push(step.name);
              log.warn("stop step left unfinished", { step: step.name, drain_ms: drainMs });
            }
          } catch (error) {
            left.push(step.name);
            log.warn("stop step failed", {
              step: step.name,
              error: error instanceof Error ? error.message : String(error),
            });
          }
        }),
      );
    }
  } finally {
    limit.dispose();
  }
  return left;
}
