// addok's processor contract (docs/style.md §5, habit 11): each stage takes the tokens and returns tokens; pipe() runs an
// ordered list of them.

export type TokenProcessor = (tokens: string[]) => string[];

/** Runs the processors in order over the tokens. */
export function pipe(tokens: string[], processors: readonly TokenProcessor[]): string[] {
  let out = tokens;
  for (const p of processors) out = p(out);
  return out;
}
