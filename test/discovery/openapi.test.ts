import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/http/errors.ts';
import { MessageBody as FollowUp } from '../../src/http/schemas.ts';
import { FirstContact } from '../../src/inbox/visitor/schemas.ts';
import { expectApiHeaders, startApp, type TestApp } from '../helpers.ts';
import { dereferenced } from '../openapi-refs.ts';

interface Operation {
  security?: Array<Record<string, string[]>>;
  requestBody?: { content: Record<string, { schema: { properties: Record<string, Record<string, unknown>>; required?: string[] } }> };
  responses: Record<string, { content?: Record<string, { schema: Record<string, unknown> }> }>;
}
interface Document {
  openapi: string;
  info: { version: string };
  paths: Record<string, Record<string, Operation>>;
  components: {
    securitySchemes: Record<string, { type: string; scheme: string }>;
    schemas: Record<string, { properties: Record<string, { enum?: string[] }> }>;
  };
}

// CONTRACT §7 and §1: GET /openapi.json, generated from the schemas that validate requests.
describe('OpenAPI document', () => {
  let t: TestApp;
  let doc: Document;
  beforeAll(async () => {
    t = await startApp();
    const response = await t.inject({ method: 'GET', url: '/openapi.json' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expectApiHeaders(response);
    // Shared schemas and responses read through their references; the error body stays named.
    doc = dereferenced(response.json() as Document, (ref) => ref === '#/components/schemas/ErrorBody');
  });
  afterAll(() => t.close());

  it('is OpenAPI 3.1', () => {
    expect(doc.openapi).toMatch(/^3\.1\./);
  });

  it('describes the three visitor paths with their methods and security', () => {
    expect(Object.keys(doc.paths['/api/conversations']!)).toContain('post');
    expect(Object.keys(doc.paths['/api/conversations/{conversation_id}']!)).toContain('get');
    expect(Object.keys(doc.paths['/api/conversations/{conversation_id}/messages']!)).toContain('post');
    expect(doc.paths['/api/conversations/{conversation_id}']!.get!.security).toEqual([{ conversationBearer: [] }]);
    expect(doc.paths['/api/conversations/{conversation_id}/messages']!.post!.security).toEqual([{ conversationBearer: [] }]);
    // Public: no credential, said explicitly.
    expect(doc.paths['/api/conversations']!.post!.security).toEqual([]);
    expect(Object.keys(doc.paths['/api/conversations']!.post!.responses)).toEqual(expect.arrayContaining(['200', '201', '400', '409', '413', '415', '429']));
    expect(Object.keys(doc.paths['/api/conversations/{conversation_id}/messages']!.post!.responses)).toEqual(
      expect.arrayContaining(['200', '201', '401', '404', '409', '429']),
    );
  });

  it('declares the bearer security schemes', () => {
    for (const name of ['conversationBearer', 'adminBearer']) {
      expect(doc.components.securitySchemes[name]).toMatchObject({ type: 'http', scheme: 'bearer' });
    }
  });

  it('lists every error code as one enum, and error responses use the error body', () => {
    const code = doc.components.schemas.ErrorBody!.properties.code!;
    expect(code.enum).toEqual(ERROR_CODES);
    const conflict = doc.paths['/api/conversations']!.post!.responses['409']!.content!['application/json']!.schema;
    expect(conflict).toEqual({ $ref: '#/components/schemas/ErrorBody' });
  });

  it('carries the request schemas that validate requests', () => {
    const creation = doc.paths['/api/conversations']!.post!.requestBody!.content['application/json']!.schema;
    expect(creation.required).toEqual(['message']);
    expect(creation.properties.message).toMatchObject({ minLength: 1, maxLength: FirstContact.properties.message.maxLength });
    expect(creation.properties.name).toMatchObject({ maxLength: 60 });
    expect(creation.properties.invitation_id).toMatchObject({ maxLength: 80 });
    expect(creation.properties.client_access_token).toMatchObject({ pattern: FirstContact.properties.client_access_token.pattern });
    const followUp = doc.paths['/api/conversations/{conversation_id}/messages']!.post!.requestBody!.content['application/json']!.schema;
    expect(followUp.properties.client_message_id).toMatchObject({ pattern: FollowUp.properties.client_message_id.pattern });
  });

  it('never contains a secret', () => {
    const text = JSON.stringify(doc);
    expect(text).not.toContain(t.config.adminToken!);
    expect(text).not.toContain(t.config.rateSalt!);
  });
});
