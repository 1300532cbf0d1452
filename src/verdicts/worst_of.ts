// "Worst of" for any verdict scale: email, address and signup answers all take the worst verdict of their parts,
// never an average (spec, signup combination rule; docs/contract.md §4).

/**
 * The worst of `verdicts` on a scale listed worst first; `best` (the last of the scale) when there is none.
 * `worstOf(["undeliverable", "risky", "unknown", "deliverable"], ["unknown", "risky"])` is "risky".
 */
export function worstOf<V extends string>(scale: readonly V[], verdicts: Iterable<V>): V {
  let worst = scale.length - 1;
  for (const verdict of verdicts) {
    const at = scale.indexOf(verdict);
    if (at < 0) throw new RangeError(`Cannot compare verdicts: "${verdict}" is not on the scale ${scale.join(" > ")}`);
    if (at < worst) worst = at;
  }
  return scale[worst]!;
}
