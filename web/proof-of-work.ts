import type { ApiResult } from './dom.ts';
import { api } from './dom.ts';

/** The address of the built worker, which the page's HTML names (its file name carries a hash). */
function workerUrl(): string | undefined {
  return document.querySelector<HTMLMetaElement>('meta[name="challenge-worker"]')?.content || undefined;
}

/** Solves a challenge in a Web Worker, so the page stays responsive; the X-Challenge-Solution value, or null. */
function solveInWorker(challenge: unknown): Promise<string | null> {
  const url = workerUrl();
  if (url === undefined) return Promise.resolve(null);
  return new Promise((resolve) => {
    const worker = new Worker(url, { type: 'module' });
    const finish = (solution: string | null) => {
      worker.terminate();
      resolve(solution);
    };
    worker.addEventListener('message', (event: MessageEvent<string | null>) => finish(event.data));
    worker.addEventListener('error', () => finish(null));
    worker.postMessage(challenge);
  });
}

/**
 * POSTs `body` to `url`; when the service asks for proof of work (428 with a challenge), solves it
 * in a worker, saying so in `onSolving`, and sends the same request once more with the solution.
 */
export async function postWithProof<T>(url: string, body: unknown, onSolving: () => void): Promise<ApiResult<T>> {
  const first = await api<T>('POST', url, { body });
  const challenge = (first.body as { challenge?: unknown } | null)?.challenge;
  if (first.status !== 428 || challenge === undefined) return first;
  onSolving();
  const solution = await solveInWorker(challenge);
  if (solution === null) return first;
  return api<T>('POST', url, { body, headers: { 'x-challenge-solution': solution } });
}
