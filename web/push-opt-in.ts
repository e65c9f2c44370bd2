import type { ApiResult } from './dom.ts';

/** The console's request helper with its token bound (dom.ts api with { token }). */
export type AdminRequest = <T>(method: string, url: string, body?: unknown) => Promise<ApiResult<T>>;

export type PushState = 'unsupported' | 'off' | 'denied' | 'not_subscribed' | 'subscribed';

const WORKER_URL = '/admin/push-worker.js';

function supported(): boolean {
  return 'serviceWorker' in navigator && 'PushManager' in window && 'Notification' in window;
}

/** The VAPID public key (base64url) as the bytes PushManager.subscribe takes. */
function keyBytes(base64url: string): Uint8Array<ArrayBuffer> {
  const base64 = base64url.replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(base64url.length / 4) * 4, '=');
  return Uint8Array.from(atob(base64), (character) => character.charCodeAt(0));
}

async function currentSubscription(): Promise<PushSubscription | null> {
  const registration = await navigator.serviceWorker.getRegistration(WORKER_URL);
  return (await registration?.pushManager.getSubscription()) ?? null;
}

/** Where this browser stands, for the notification panel's switch. */
export async function pushState(): Promise<PushState> {
  if (!supported()) return 'unsupported';
  if (Notification.permission === 'denied') return 'denied';
  return (await currentSubscription()) ? 'subscribed' : 'not_subscribed';
}

/**
 * Opts this browser in: asks for permission (call it from a click), registers the worker, subscribes
 * with the server's key and hands the subscription to the server. 'off' when the server has no key.
 */
export async function subscribeToPush(request: AdminRequest): Promise<PushState> {
  if (!supported()) return 'unsupported';
  const key = await request<{ public_key: string | null }>('GET', '/api/admin/push-subscriptions/key');
  if (!key.body?.public_key) return 'off';
  if ((await Notification.requestPermission()) !== 'granted') return 'denied';
  const registration = await navigator.serviceWorker.register(WORKER_URL, { scope: '/admin/' });
  await navigator.serviceWorker.ready;
  const subscription = await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(key.body.public_key) });
  const saved = await request('POST', '/api/admin/push-subscriptions', subscription.toJSON());
  if (saved.status !== 201) {
    await subscription.unsubscribe();
    return 'not_subscribed';
  }
  return 'subscribed';
}

/** Opts this browser out, on the server first so that no push is sent to a subscription that is gone. */
export async function unsubscribeFromPush(request: AdminRequest): Promise<PushState> {
  if (!supported()) return 'unsupported';
  const subscription = await currentSubscription();
  if (!subscription) return 'not_subscribed';
  await request('DELETE', '/api/admin/push-subscriptions', { endpoint: subscription.endpoint });
  await subscription.unsubscribe();
  return 'not_subscribed';
}
