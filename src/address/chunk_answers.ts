// A slice of a bulk address job's chunk, answered where it is matched. The main thread of a bulk job only moves text:
// it hands a worker thread the chunk's inputs and duplicate marks as the database stored them (JSON texts it never
// parses), and gets back the answers already written as the JSON the database stores and the summary counted. Parsing
// those texts, building the answers and writing them again on the main thread cost it about as much as the matching
// cost each thread, and on a machine with as many cores as threads the threads then waited for it (measured with a
// CPU profile of bench/bulk_address.ts: the two threads idle 16 of 25 s while the main thread parsed and wrote).
import { storedAnswerText } from "./stored_answer.ts";
import type { AddressInput, AddressVerification } from "./types.ts";

/** Rows [from, to) of a chunk whose texts are as stored (address_job_store.ts). */
export interface ChunkSlice {
  /** The chunk's inputs: a JSON array of what POST /v1/address takes. */
  inputs: string;
  /** For each row of the chunk, the 1-based position of the job's first equal row, or null: a JSON array. */
  dupOf: string;
  /** The 1-based position of the chunk's first row in its job. */
  firstRow: number;
  from: number;
  to: number;
}

/**
 * The answers of a slice, in row order: their stored JSON texts (stored_answer.ts) joined by commas (an array's
 * inside), and their verdicts counted.
 */
export interface SliceAnswers {
  answers: string;
  summary: Record<string, number>;
}

/**
 * Answers the rows of the slice with `match`. A row equal to an earlier row of the same slice takes that row's answer
 * (it was charged once, and it is verified once); a row equal to one outside the slice is matched again, which gives
 * the same answer from the same index and costs less than fetching it. A bulk answer carries no time of its own
 * (duration_ms 0), as the job's runner always wrote it.
 */
export function answerSlice(slice: ChunkSlice, match: (input: AddressInput) => AddressVerification): SliceAnswers {
  const { firstRow, from, to } = slice;
  const inputs = JSON.parse(slice.inputs) as AddressInput[];
  const dupOf = JSON.parse(slice.dupOf) as Array<number | null>;
  if (!(Number.isInteger(from) && Number.isInteger(to) && 0 <= from && from <= to && to <= inputs.length)) {
    throw new RangeError(`Cannot answer rows ${from}-${to} of a chunk of ${inputs.length}`);
  }
  const texts: string[] = new Array(to - from);
  const verdicts: string[] = new Array(to - from);
  const summary: Record<string, number> = {};
  for (let k = from; k < to; k++) {
    const first = dupOf[k] ?? null;
    const earlier = first === null ? -1 : first - firstRow;
    if (earlier >= from && earlier < k) {
      texts[k - from] = texts[earlier - from]!;
      verdicts[k - from] = verdicts[earlier - from]!;
    } else {
      const answer = match(inputs[k]!);
      texts[k - from] = storedAnswerText(answer);
      verdicts[k - from] = answer.verdict;
    }
    const verdict = verdicts[k - from]!;
    summary[verdict] = (summary[verdict] ?? 0) + 1;
  }
  return { answers: texts.join(","), summary };
}

/** A chunk's answers as the database stores them: a JSON array, one answer per row, and the verdicts counted. */
export interface ChunkAnswers {
  results: string;
  summary: Record<string, number>;
}

/** The slices' answers, in row order, as one chunk's. */
export function joinSlices(slices: readonly SliceAnswers[]): ChunkAnswers {
  const summary: Record<string, number> = {};
  for (const slice of slices) {
    for (const [verdict, n] of Object.entries(slice.summary)) summary[verdict] = (summary[verdict] ?? 0) + n;
  }
  return {
    results: `[${slices
      .map((s) => s.answers)
      .filter((a) => a !== "")
      .join(",")}]`,
    summary,
  };
}
