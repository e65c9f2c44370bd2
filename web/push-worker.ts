/**
 * The console's service worker (served at /admin/push-worker.js, scope /admin/): shows each Web
 * Push alert as a notification, unless a console tab is in front (the operator sees it already),
 * and opens the alert's link on a click.
 */

interface PushPayload {
  title: string;
  body: string;
  url: string;
  tag: string;
}

interface WindowClientLike {
  url: string;
  visibilityState: 'visible' | 'hidden' | 'prerender';
  focused: boolean;
  focus(): Promise<unknown>;
}

interface ExtendableEventLike {
  waitUntil(work: Promise<unknown>): void;
}

/** The few service worker APIs used here (the page build's types are the window's). */
interface ServiceWorkerScope {
  addEventListener(type: 'push', listener: (event: ExtendableEventLike & { data: { json(): unknown } | null }) => void): void;
  addEventListener(type: 'notificationclick', listener: (event: ExtendableEventLike & { notification: { data: unknown; close(): void } }) => void): void;
  clients: {
    matchAll(options: { type: 'window'; includeUncontrolled: boolean }): Promise<WindowClientLike[]>;
    openWindow(url: string): Promise<unknown>;
  };
  registration: { showNotification(title: string, options: { body: string; tag: string; data: string; renotify: boolean }): Promise<void> };
}

const scope = self as unknown as ServiceWorkerScope;

async function consoleInFront(): Promise<boolean> {
  const windows = await scope.clients.matchAll({ type: 'window', includeUncontrolled: true });
  return windows.some((client) => new URL(client.url).pathname.startsWith('/admin') && client.visibilityState === 'visible' && client.focused);
}

scope.addEventListener('push', (event) => {
  const payload = event.data?.json() as PushPayload | undefined;
  if (!payload) return;
  event.waitUntil(
    consoleInFront().then((inFront) =>
      inFront ? undefined : scope.registration.showNotification(payload.title, { body: payload.body, tag: payload.tag, data: payload.url, renotify: true }),
    ),
  );
});

scope.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const url = typeof event.notification.data === 'string' ? event.notification.data : '/admin/';
  event.waitUntil(scope.clients.openWindow(url));
});
