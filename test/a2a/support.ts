import type { AddressInfo } from 'node:net';
import { Message, SendMessageRequest, type Task } from '@a2a-js/sdk';
import { ClientFactory, type Client } from '@a2a-js/sdk/client';
import { A2A_FACTS } from '../../src/http/agent-facts.ts';
import { startApp, type TestApp, type TestAppOptions } from '../helpers.ts';

/** A service on a real listening socket (loopback, port 0), and the SDK's own client made from its agent card. */
export async function a2aService(options: TestAppOptions = {}): Promise<{ t: TestApp; base: string; client: Client }> {
  const t = await startApp(options);
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  return { t, base, client: await new ClientFactory().createFromUrl(base) };
}

/** A message as an agent writes it on the wire (proto JSON), read by the SDK's own codec. */
export function userMessage(messageId: string, text: string, extra: { taskId?: string; metadata?: Record<string, unknown> } = {}): SendMessageRequest {
  return SendMessageRequest.fromJSON({ message: { messageId, role: 'ROLE_USER', parts: [{ text }], ...extra } });
}

/** The first message's metadata under the extension: name, invitation_id, client_access_token. */
export const firstContactMetadata = (fields: Record<string, unknown>) => ({ [A2A_FACTS.extension_uri]: fields });

/** The token metadata a task carries under the extension, if any. */
export function tokenOf(task: Task): { access_token: string | null; note: string } | undefined {
  return task.metadata?.[A2A_FACTS.extension_uri];
}

export const bearerHeader = (token: string) => ({ serviceParameters: { Authorization: `Bearer ${token}` } });

export function asTask(result: Task | Message): Task {
  if (!('status' in result)) throw new Error(`expected a task, got a message: ${JSON.stringify(result)}`);
  return result;
}

export const textOf = (message: Message | undefined) => message?.parts.map((part) => part.content?.value).join('');
