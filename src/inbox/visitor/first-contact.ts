import type { Sources } from '../../http/client-source.ts';
import type { Services } from '../../services.ts';
import { hashToken, newToken, sha256 } from '../../tokens.ts';
import type { NewConversation } from '../commands/create-conversation.ts';
import type { IssuedToken } from './presenters.ts';
import type { FirstContact } from './schemas.ts';

const ANONYMOUS = 'Anonymous';

/** What makes two first requests "the same" for an idempotent retry (CONTRACT §3.1). */
function fingerprint(name: string, invitationId: string | null, message: string): string {
  return sha256(JSON.stringify([name, invitationId, message]));
}

/**
 * A validated first contact as the creation write's input, and the token it is created with: the
 * client's own, or one made now that only this request's answer will carry.
 */
export function firstContact(
  body: FirstContact,
  { source, wide }: Sources,
  services: Pick<Services, 'limiter' | 'clock'>,
  trust: Pick<NewConversation, 'proof' | 'verifiedOrigin'>,
): { input: NewConversation; issued: IssuedToken } {
  const name = body.name || ANONYMOUS;
  const invitationId = body.invitation_id || null;
  const clientMade = body.client_access_token !== undefined;
  const accessToken = body.client_access_token ?? newToken();
  return {
    input: {
      clientSuppliedToken: clientMade,
      tokenHash: hashToken(accessToken),
      fingerprint: fingerprint(name, invitationId, body.message),
      name,
      invitationId,
      message: body.message,
      source,
      sourceWide: wide,
      ...trust,
      limiter: services.limiter,
      now: services.clock.now(),
    },
    issued: { accessToken, clientMade },
  };
}
