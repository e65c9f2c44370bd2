import type { FastifyRequest } from 'fastify';

const NORMALISED = ['category', 'status'] as const;

/**
 * R3 (CONTRACT §10): a topic list's category and status filters are trimmed and lowercased, and an
 * empty one means no filter. Runs before validation, so the schema judges the normalised value.
 */
export async function normaliseListQuery(request: FastifyRequest): Promise<void> {
  const query = request.query as Record<string, unknown>;
  for (const name of NORMALISED) {
    const value = query[name];
    if (typeof value !== 'string') continue;
    const normalised = value.trim().toLowerCase();
    if (normalised === '') delete query[name];
    else query[name] = normalised;
  }
}
