import { createHmac } from 'node:crypto';

/**
 * The Standard Webhooks signature of one attempt: `v1,` and the base64 HMAC-SHA256, under the
 * signing key, of `<id>.<timestamp>.<body>` (timestamp in whole seconds).
 */
export function signature(signingKey: Buffer, id: string, timestamp: number, body: string): string {
  return `v1,${createHmac('sha256', signingKey).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}
