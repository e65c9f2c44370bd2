/** How long another service (Telegram, a webhook receiver) gets to answer. */
export const OUTBOUND_TIMEOUT_MS = 8_000;

/** What became of one POST to another service. */
export type PostOutcome = { kind: 'answered'; status: number } | { kind: 'timed_out' } | { kind: 'unreachable'; code: string };

/** A short, secret-free name for what went wrong (the error message of a failed fetch may hold the URL). */
export function errorCode(error: unknown): string {
  const { name, cause } = error as { name?: unknown; cause?: { code?: unknown } };
  if (typeof cause?.code === 'string') return cause.code;
  return typeof name === 'string' ? name : 'unknown';
}

/**
 * One POST of a JSON body to another service (an alert, a webhook): a redirect is answered, never
 * followed (it could lead the body elsewhere), the answer's body is not read, and the whole exchange
 * gets `timeoutMs`. Never throws; the outcome names no URL.
 */
export async function postJson(url: string, body: string, headers: Record<string, string>, timeoutMs: number): Promise<PostOutcome> {
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    await response.body?.cancel().catch(() => undefined);
    return { kind: 'answered', status: response.status };
  } catch (error) {
    const code = errorCode(error);
    return code === 'TimeoutError' || code === 'AbortError' ? { kind: 'timed_out' } : { kind: 'unreachable', code };
  }
}
