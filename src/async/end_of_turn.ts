// The current turn of the event loop, and a promise of its end shared by everyone who waits for it in that turn.
// serve.ts holds an answer that is ready within the turn its request arrived in until the end of that turn: under
// load one turn reads many requests, and when each is answered at once (test keys, refusals, answers settled without
// a lookup) their answers then leave back to back rather than one every few tens of microseconds. A client or proxy
// on the same host that was asleep is woken once for all of them rather than once an answer, and that wake-up is most
// of what a write costs on a loaded two-vCPU machine: test-mode calls went from about 75 to 45-50 µs of main-thread
// CPU a request, and 25-55% more requests a second (docs/decisions.md, "Answers of one turn leave together").

export interface Turn {
  /** True once the check phase of this turn has run. */
  readonly ended: boolean;
  /** Resolves in the check phase of this turn (setImmediate), after the I/O callbacks of the turn have run. */
  readonly end: Promise<void>;
}

let current: Turn | undefined;

/** This turn: every call made before its check phase gets the same one, so that its waiters resume together. */
export function currentTurn(): Turn {
  if (current) return current;
  let resolveEnd!: () => void;
  const turn = { ended: false, end: new Promise<void>((resolve) => (resolveEnd = resolve)) };
  current = turn;
  setImmediate(() => {
    current = undefined;
    turn.ended = true;
    resolveEnd();
  });
  return turn;
}
