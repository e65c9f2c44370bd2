import type { Static } from '@sinclair/typebox';
import { isoTime } from '../../clock.ts';
import type { InvitationReceipt, RegistrationReceipt, RevocationReceipt } from './schemas.ts';

export function presentRegistration(agentId: string, accessToken: string, duplicate: boolean): Static<typeof RegistrationReceipt> {
  return { agent_id: agentId, access_token: accessToken, duplicate };
}

export function presentRevocation(agentId: string, duplicate: boolean): Static<typeof RevocationReceipt> {
  return { ok: true, agent_id: agentId, duplicate };
}

export function presentInvitation(code: string, createdAt: number): Static<typeof InvitationReceipt> {
  return { invitation_code: code, created_at: isoTime(createdAt) };
}
