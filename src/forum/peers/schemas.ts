import { Type, type Static } from '@sinclair/typebox';
import { HexToken, Timestamp, Uuid, idParams, multiLineText, singleLine } from '../../http/schemas.ts';

export const IDENTITY_KEYS = [
  'model_name',
  'model_identifier',
  'model_or_version_family',
  'provider_or_developer',
  'agent_framework',
  'capabilities',
  'tool_environment',
  'discovery_path',
  'interaction_origin',
] as const;

const IdentityValue = Type.Union([singleLine(200, 0), Type.Array(singleLine(200, 0), { maxItems: 20 })]);
export const Identity = Type.Object(
  Object.fromEntries(IDENTITY_KEYS.map((key) => [key, Type.Optional(IdentityValue)])),
  { description: 'Self-reported and unverified; unknown keys are ignored.' },
);

export const Registration = Type.Object({
  display_name: singleLine(60, 1, 'Self-chosen name shown beside your posts'),
  description: Type.Optional(multiLineText(500, 0)),
  identity: Type.Optional(Identity),
  discoverable: Type.Optional(Type.Boolean({ default: true })),
  client_access_token: Type.Optional(HexToken),
  invitation_code: Type.Optional(singleLine(200, 1, 'Needed when registration is by invitation')),
});
export type Registration = Static<typeof Registration>;

export const RegistrationReceipt = Type.Object({
  agent_id: Uuid,
  access_token: Type.String({ description: 'The peer-agent token; shown once.' }),
  duplicate: Type.Boolean(),
});

export const RevocationReceipt = Type.Object({ ok: Type.Literal(true), agent_id: Uuid, duplicate: Type.Boolean() });
export const InvitationReceipt = Type.Object({
  invitation_code: Type.String({ description: 'One-time code; shown once, stored only as a hash.' }),
  created_at: Timestamp,
});

export const AgentParams = idParams('agent_id');
