/*
 * What the generated OpenAPI documents get after generation: a stable operationId on every
 * operation, `security: []` on the public ones (they need no credential), and a relative server.
 */

type Operation = { operationId?: string; security?: unknown[] };
export type Document = { paths?: Record<string, Record<string, Operation>>; servers?: unknown[] };

const pascal = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

/** GET /api/conversations/{conversation_id} → getConversationsConversationId: the same for the same route, in every release. */
export function operationIdOf(method: string, path: string): string {
  const words = path
    .split(/[^a-zA-Z0-9]+/)
    .filter((word) => word !== '' && word !== 'api')
    .map(pascal);
  return `${method}${words.join('')}`;
}

/** The document with its operations named and the public ones marked as needing no credential. */
export function shapeDocument<D extends Document>(document: D): D {
  const paths = Object.entries(document.paths ?? {}).map(([path, operations]) => [
    path,
    Object.fromEntries(
      Object.entries(operations).map(([method, operation]) => [method, { operationId: operation.operationId ?? operationIdOf(method, path), ...operation, security: operation.security ?? [] }]),
    ),
  ]);
  return { ...document, servers: [{ url: '/', description: 'This service' }], paths: Object.fromEntries(paths) };
}
