// The refusal a job store throws when a submission's Idempotency-Key was taken meanwhile by a job of the same account
// (a concurrent request committed first): the route then answers that job, as a replay.

/** submit() found its Idempotency-Key taken by a job of the account committed meanwhile (a concurrent request). */
export class IdempotencyKeyTaken extends Error {
  override name = "IdempotencyKeyTaken";
}
