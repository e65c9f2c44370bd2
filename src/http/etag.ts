import type { FastifyReply, FastifyRequest } from 'fastify';
import { sha256 } from '../tokens.ts';

/** True when an If-None-Match header names `etag` (weak or strong, in a list, or `*`); a tag sent without its quotes counts too. */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((candidate) => {
    const tag = candidate.trim().replace(/^W\//, '');
    return tag === etag || tag === '*' || `"${tag}"` === etag;
  });
}

/** A strong tag that names `text` (a body, or what decides one): equal text gives equal tags on every instance. */
export function digestTag(text: string): string {
  return `"${sha256(text).slice(0, 32)}"`;
}

export function sendNotModified(reply: FastifyReply, etag: string): FastifyReply {
  return reply.code(304).header('ETag', etag).send();
}

/** A JSON body serialized already (reply.serialize), under `etag`; 304 without it when If-None-Match names the tag. */
export function sendTagged(request: FastifyRequest, reply: FastifyReply, etag: string, body: string | Buffer): FastifyReply {
  if (etagMatches(request.headers['if-none-match'], etag)) return sendNotModified(reply, etag);
  return reply.header('ETag', etag).type('application/json; charset=utf-8').send(body);
}
