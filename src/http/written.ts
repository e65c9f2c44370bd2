/** 201 for a new write, 200 for the earlier result of the same request (an idempotent retry). */
export function writtenStatus(outcome: { kind: 'written' | 'duplicate' }): 200 | 201 {
  return outcome.kind === 'written' ? 201 : 200;
}
