/**
 * What the store holds under a request's idempotency key (a client token, a client_message_id):
 * the result the same request produced earlier, or a sign that another request took the key.
 */
export type Earlier<R> = { kind: 'same'; result: R } | { kind: 'other' };

export type IdempotentOutcome<R> = { kind: 'written'; result: R } | { kind: 'duplicate'; result: R } | { kind: 'conflict' };

export interface IdempotentWrite<R> {
  /** The earlier result under the request's key; undefined when there is none, or no key. */
  findEarlier: () => Promise<Earlier<R> | undefined>;
  /** The write: a command run in its own transaction (see runCommand). */
  write: () => Promise<R>;
}

const answerAs = <R>(earlier: Earlier<R>): IdempotentOutcome<R> =>
  earlier.kind === 'same' ? { kind: 'duplicate', result: earlier.result } : { kind: 'conflict' };

/**
 * The one rule of every write a client may retry: the same key with the same request is the earlier
 * result (a duplicate, charged to no limit), with another request a conflict. A write that fails
 * may have lost a race to its own retry, which committed first (a unique key, or a limit, cap or
 * status that the winner's commit used up): when the key now has a result, the request answers as
 * that retry; otherwise the write's own error stands.
 */
export async function idempotent<R>(request: IdempotentWrite<R>): Promise<IdempotentOutcome<R>> {
  const earlier = await request.findEarlier();
  if (earlier) return answerAs(earlier);
  try {
    return { kind: 'written', result: await request.write() };
  } catch (error) {
    const raced = await request.findEarlier().catch(() => undefined);
    if (raced) return answerAs(raced);
    throw error;
  }
}
