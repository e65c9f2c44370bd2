/*
 * The OpenAPI documents say shared schemas, responses and parameters once, in components
 * (src/discovery/openapi-compact.ts). Tests that read what an operation says read it through
 * its references, as a client does.
 */

type Json = Record<string, unknown>;

function target(document: Json, ref: string): unknown {
  if (!ref.startsWith('#/')) throw new Error(`not a local reference: ${ref}`);
  return ref
    .slice(2)
    .split('/')
    .reduce<unknown>((node, key) => (node as Json | undefined)?.[key], document);
}

/**
 * The document with every local $ref replaced by what it names, except those `keep` names; a
 * description beside a $ref overrides the named one's (OpenAPI 3.1).
 */
export function dereferenced<T>(document: T, keep: (ref: string) => boolean = () => false): T {
  const root = document as Json;
  const visit = (node: unknown, through: readonly string[]): unknown => {
    if (Array.isArray(node)) return node.map((part) => visit(part, through));
    if (node === null || typeof node !== 'object') return node;
    const { $ref, ...siblings } = node as Json;
    if (typeof $ref === 'string' && !keep($ref)) {
      if (through.includes($ref)) throw new Error(`a reference cycle through ${$ref}`);
      const named = visit(target(root, $ref), [...through, $ref]) as Json;
      return { ...named, ...(visit(siblings, through) as Json) };
    }
    return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, visit(value, through)]));
  };
  return visit(document, []) as T;
}
