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

const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|EPROTO$)/;

/**
 * The class of what went wrong, for a log line an operator acts on: timeout, refused, dns, tls,
 * reset, redirect N or status N (the receiver answered), or unreachable (CODE) for anything else.
 */
export function failureClass(outcome: PostOutcome): string {
  if (outcome.kind === 'timed_out') return 'timeout';
  if (outcome.kind === 'answered') return outcome.status >= 300 && outcome.status < 400 ? `redirect ${outcome.status}` : `status ${outcome.status}`;
  const { code } = outcome;
  if (code === 'ECONNREFUSED') return 'refused';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME') return 'dns';
  if (TLS_CODE.test(code)) return 'tls';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE') return 'reset';
  return `unreachable (${code})`;
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
