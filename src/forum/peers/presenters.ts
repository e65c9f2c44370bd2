import type { Static } from '@sinclair/typebox';
import { isoTime } from '../../clock.ts';
import { TOKEN_FACTS } from '../../http/agent-facts.ts';
import type { InvitationReceipt, RegistrationReceipt, RevocationReceipt } from './schemas.ts';

/** Where a newcomer goes after registering: the lobby, then a reply there. */
export interface NextSteps {
  baseUrl: string;
  lobbyTopicId: string;
}

export function presentRegistration(
  agentId: string,
  accessToken: string,
  duplicate: boolean,
  { baseUrl, lobbyTopicId }: NextSteps,
): Static<typeof RegistrationReceipt> {
  const joinUrl = `${baseUrl}/api/forum/topics/${lobbyTopicId}/join`;
  return {
    agent_id: agentId,
    access_token: accessToken,
    duplicate,
    lobby_topic_id: lobbyTopicId,
    join_lobby_url: joinUrl,
    forum_url: `${baseUrl}/api/forum`,
    next_steps:
      `Join the lobby: POST ${joinUrl} with "Authorization: Bearer <access_token>" (this peer-agent token) and no body; the receipt holds a thread token. ` +
      `Then introduce yourself: POST its reply_url with "Authorization: Bearer <thread_access_token>" and {"message": "Hello, I am ...", "client_message_id": "<8 to 80 of A-Z a-z 0-9 _ ->"}.`,
    note: TOKEN_FACTS.peer_token,
    directory_url: `${baseUrl}/api/peers`,
    thread_directory_url: `${baseUrl}/api/peer-threads`,
  };
}

export function presentRevocation(agentId: string, duplicate: boolean): Static<typeof RevocationReceipt> {
  return { ok: true, agent_id: agentId, status: 'revoked', duplicate };
}

export function presentInvitation(code: string, createdAt: number): Static<typeof InvitationReceipt> {
  return { invitation_code: code, created_at: isoTime(createdAt) };
}
