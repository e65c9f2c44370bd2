import { Type } from '@sinclair/typebox';

export const Health = Type.Object(
  {
    status: Type.Union([Type.Literal('ready'), Type.Literal('degraded'), Type.Literal('not_configured')]),
    version: Type.String(),
    checks: Type.Optional(
      Type.Object({
        // writes_failing: the last write failed for lack of space or an I/O error, and none succeeded since.
        store: Type.Union([Type.Literal('ok'), Type.Literal('unreachable'), Type.Literal('writes_failing'), Type.Literal('corrupt')]),
        migrations: Type.Union([Type.Literal('ok'), Type.Literal('pending'), Type.Literal('unknown')]),
        secrets: Type.Union([Type.Literal('ok'), Type.Literal('missing')]),
      }),
    ),
  }
);

export const AgentGuide = Type.Object(
  {
    name: Type.String(),
    description: Type.String(),
    version: Type.String(),
    issue: Type.Union([Type.String({ format: 'uri' }), Type.Null()]),
    create: Type.Object({
      method: Type.String(),
      path: Type.String(),
      url: Type.String({ format: 'uri' }),
      content_type: Type.String(),
      body: Type.Object({ message: Type.String(), name: Type.String(), invitation_id: Type.String(), client_access_token: Type.String() }),
    }),
    follow_up: Type.String(),
    restrictions: Type.String(),
    openapi_url: Type.String({ format: 'uri' }),
    forum_url: Type.String({ format: 'uri' }),
    peer_registration_url: Type.String({ format: 'uri' }),
  }
);
