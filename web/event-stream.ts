/**
 * The operator's event stream read with fetch: EventSource cannot send the token in a header, and a
 * token in a URL would land in logs and history. Reconnects after any drop with Last-Event-ID, so
 * the server replays what was missed.
 */
import { jittered } from './dom.ts';

export interface StreamEvent {
  id: string;
  type: string;
  conversation_id?: string;
  topic_id?: string;
  agent_id?: string;
}

/** Sent instead of events the server no longer keeps (after a restart, from another instance, or too far behind): refetch. */
export const RESET_EVENT = 'stream.reset';

export type StreamState = 'live' | 'reconnecting' | 'refused';

export interface StreamOptions {
  token: string;
  onEvent(event: StreamEvent): void;
  onState(state: StreamState): void;
}

/** The server writes a comment every 15 s: three missed in a row means the connection is dead, even if no error says so. */
const SILENCE_MS = 45_000;
/** Never under 1 s, jittered: consoles dropped together do not come back together. */
const RETRY_MS = [1_000, 2_000, 5_000, 10_000];

/** Starts reading; returns the function that stops for good. */
export function openEventStream(options: StreamOptions): () => void {
  let stopped = false;
  let lastEventId: string | undefined;
  let controller: AbortController | undefined;
  let failures = 0;

  const parse = (block: string) => {
    let id: string | undefined;
    let data = '';
    for (const line of block.split('\n')) {
      if (line.startsWith('id:')) id = line.slice(3).trim();
      else if (line.startsWith('data:')) data += line.slice(5).trim();
    }
    if (id !== undefined) lastEventId = id;
    if (!data) return;
    try {
      options.onEvent({ ...(JSON.parse(data) as Omit<StreamEvent, 'id'>), id: id ?? '' });
    } catch {
      // A malformed event is skipped; the next list refresh shows the truth anyway.
    }
  };

  const connect = async (): Promise<void> => {
    controller = new AbortController();
    const current = controller;
    let watchdog = window.setTimeout(() => current.abort(), SILENCE_MS);
    const alive = () => {
      window.clearTimeout(watchdog);
      watchdog = window.setTimeout(() => current.abort(), SILENCE_MS);
    };
    try {
      const headers: Record<string, string> = { authorization: `Bearer ${options.token}`, accept: 'text/event-stream' };
      if (lastEventId) headers['last-event-id'] = lastEventId;
      const response = await fetch('/api/admin/events', { headers, cache: 'no-store', signal: current.signal });
      if (response.status === 401) {
        stopped = true;
        options.onState('refused');
        return;
      }
      if (!response.ok || !response.body) throw new Error(`status ${response.status}`);
      failures = 0;
      options.onState('live');
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        alive();
        buffer += value.replaceAll('\r\n', '\n');
        let end = buffer.indexOf('\n\n');
        while (end >= 0) {
          parse(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
          end = buffer.indexOf('\n\n');
        }
      }
    } catch {
      // A network drop or the watchdog: reconnect below.
    } finally {
      window.clearTimeout(watchdog);
    }
    if (stopped) return;
    options.onState('reconnecting');
    const delay = jittered(RETRY_MS[Math.min(failures, RETRY_MS.length - 1)] ?? 10_000);
    failures += 1;
    window.setTimeout(() => void connect(), delay);
  };

  void connect();
  return () => {
    stopped = true;
    controller?.abort();
  };
}
