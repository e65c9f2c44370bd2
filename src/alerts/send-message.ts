import type { AlertOutcome } from './alerts.ts';

/** Where a Telegram alert goes; the URL built from it holds the bot token. */
export interface BotTarget {
  botToken: string;
  chatId: string;
  apiBase: string;
  timeoutMs: number;
}

function failure(detail: string): AlertOutcome {
  return { sent: false, reason: 'delivery_failed', detail };
}

/** A short, secret-free name for what went wrong (the error message of a failed fetch may hold the URL). */
export function errorCode(error: unknown): string {
  const { name, cause } = error as { name?: unknown; cause?: { code?: unknown } };
  if (typeof cause?.code === 'string') return cause.code;
  return typeof name === 'string' ? name : 'unknown';
}

/** One Bot API `sendMessage`; never throws. */
export async function sendMessage(bot: BotTarget, text: string): Promise<AlertOutcome> {
  // The URL holds the bot token: it is built here and never logged, and no error text is passed on.
  const url = `${bot.apiBase}/bot${bot.botToken}/sendMessage`;
  let status: number;
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ chat_id: bot.chatId, text }),
      redirect: 'manual',
      signal: AbortSignal.timeout(bot.timeoutMs),
    });
    status = response.status;
    await response.body?.cancel().catch(() => undefined);
  } catch (error) {
    const code = errorCode(error);
    if (code === 'TimeoutError' || code === 'AbortError') {
      return failure(`Telegram did not answer within ${bot.timeoutMs / 1000} seconds.`);
    }
    return failure(`Telegram could not be reached (${code}).`);
  }
  if (status >= 200 && status < 300) return { sent: true };
  if (status >= 300 && status < 400) return failure(`Telegram answered with a redirect (HTTP ${status}), which is not followed.`);
  return failure(`Telegram refused the alert (HTTP ${status}).`);
}
