import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { TestApp } from '../helpers.ts';

export const ACTION_KEY = 'action-key-for-tests-0123456789abcdef0123';
export const PUBLIC_URL = 'https://parley.example';
export const LINK_ENV = { ACTION_KEY, PUBLIC_URL, LIMIT_CONVERSATION_SOURCE: '1000/1h', LIMIT_CONVERSATION_GLOBAL: '1000/1h', LIMIT_FOLLOWUP_SOURCE: '1000/1h' };

/** The path of the signed link the alerts would carry for `thread`. */
export function linkPath(t: TestApp, thread: string): string {
  const url = t.app.services.actionLinks.urlFor(thread);
  expect(url).toBeDefined();
  expect(url!.startsWith(`${PUBLIC_URL}/act/`)).toBe(true);
  return url!.slice(PUBLIC_URL.length);
}

/** The hidden fields of the page's first form (form_token and nonce). */
export function formFields(page: LightMyRequestResponse): { form_token: string; nonce: string } {
  const token = /name="form_token" value="([^"]+)"/.exec(page.body)?.[1];
  const nonce = /name="nonce" value="([^"]+)"/.exec(page.body)?.[1];
  expect(token).toBeDefined();
  expect(nonce).toBeDefined();
  return { form_token: token!, nonce: nonce! };
}

/** A form post as a browser on the page sends it. */
export function postForm(t: TestApp, path: string, fields: Record<string, string>, headers: Record<string, string> = { 'sec-fetch-site': 'same-origin' }) {
  return t.inject({
    method: 'POST',
    url: path,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: new URLSearchParams(fields).toString(),
  });
}
