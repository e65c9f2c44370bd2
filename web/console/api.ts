import { api, byId, type ApiResult } from '../dom.ts';
import { state } from './state.ts';

export class SignedOut extends Error {}

let onSignedOut: (message: string) => void = () => undefined;

/** The sign-in screen registers itself here, so that this module needs no import of it. */
export function whenSignedOut(handler: (message: string) => void): void {
  onSignedOut = handler;
}

/** An API call; a 401 means the token stopped working, which sends the operator back to the sign-in. */
export async function call<T>(method: string, url: string, body?: unknown): Promise<ApiResult<T>> {
  const result = await api<T>(method, url, { token: state.token, body });
  if (result.status === 401 && state.token) {
    onSignedOut('The token is no longer accepted (it may have been changed): sign in again.');
    throw new SignedOut();
  }
  return result;
}

/** Runs an action; a network failure becomes a sentence in `statusId` instead of an unhandled error. */
export function attempt(statusId: string, action: () => Promise<unknown>): void {
  action().catch((error: unknown) => {
    if (error instanceof SignedOut) return;
    setStatus(statusId, 'Could not reach the server. Check the connection and try again.', true);
  });
}

export function setStatus(id: string, text: string, isError = false): void {
  const node = byId(id);
  node.textContent = text;
  node.classList.toggle('error', isError);
}
