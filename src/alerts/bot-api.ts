import type { PostOutcome } from '../http/post-json.ts';
import { errorCode } from '../http/post-json.ts';

/** Where Bot API calls go; the URL built from it holds the bot token. */
export interface BotTarget {
  botToken: string;
  chatId: string;
  apiBase: string;
  timeoutMs: number;
}

/** The most of a Bot API answer that is read: a sendMessage result is well under it. */
const ANSWER_LIMIT_BYTES = 64 * 1024;

/** What one Bot API call came to, with the `result` of a successful answer when it was JSON. */
export type BotAnswer = PostOutcome & { result?: unknown };

async function readResult(response: Response): Promise<unknown> {
  const length = Number(response.headers.get('content-length') ?? '0');
  if (length > ANSWER_LIMIT_BYTES) {
    await response.body?.cancel().catch(() => undefined);
    return undefined;
  }
  try {
    const text = await response.text();
    if (text.length > ANSWER_LIMIT_BYTES) return undefined;
    return (JSON.parse(text) as { result?: unknown }).result;
  } catch {
    return undefined;
  }
}

/**
 * One Bot API method called with a JSON body: a redirect is answered, never followed, and the whole
 * exchange gets the target's timeout. Never throws; the outcome names no URL (the URL holds the bot token).
 */
export async function callBotApi(bot: BotTarget, method: string, payload: object): Promise<BotAnswer> {
  try {
    const response = await fetch(`${bot.apiBase}/bot${bot.botToken}/${method}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(payload),
      redirect: 'manual',
      signal: AbortSignal.timeout(bot.timeoutMs),
    });
    if (response.status < 200 || response.status >= 300) {
      await response.body?.cancel().catch(() => undefined);
      return { kind: 'answered', status: response.status };
    }
    return { kind: 'answered', status: response.status, result: await readResult(response) };
  } catch (error) {
    const code = errorCode(error);
    return code === 'TimeoutError' || code === 'AbortError' ? { kind: 'timed_out' } : { kind: 'unreachable', code };
  }
}
