import type { Kysely } from 'kysely';
import { blockOnSources, holds } from '../../../blocks/queries.ts';
import { rowsOf } from '../../../store/sent-together.ts';
import type { Sources } from '../../../http/client-source.ts';
import type { Charge, Limiter } from '../../../limits/limiter.ts';
import { PROOF_REFUSALS, proofRequired, spendProof, type ProofOfWork } from '../../../challenges/proof.ts';
import type { Database } from '../../../store/schema.ts';
import { hashToken, sha256 } from '../../../tokens.ts';
import { defineWrite } from '../../../writes/write.ts';
import { recordReferral } from '../../referrals/counters.ts';
import { consumeInvitation, findAgentByTokenHash, insertAgent } from '../queries.ts';
import { IDENTITY_KEYS } from '../../../http/agent-facts.ts';
import type { Registration } from '../schemas.ts';

/**
 * How a new agent is let in (FORUM_REGISTRATION): charged to its source (a verified agent: to its
 * origin's own budget), or by an operator's invitation code.
 */
export type Admission = { kind: 'open'; source: string; verifiedOrigin: string | null; limiter: Limiter } | { kind: 'invite'; code: string | undefined };

export interface RegisterPeerInput {
  registration: Registration;
  /** The client_access_token, or a new token when the client sent none. */
  accessToken: string;
  admission: Admission;
  /** The normalised referral id (body referral_id, else ?ref=), or null; counted with `limiter` (COMPAT §2). */
  referral: { id: string | null; limiter: Limiter };
  /** Where the request comes from: a block on it refuses the registration, and the agent keeps it for later blocks. */
  sources: Sources;
  /** The proof of work the request carries, when CHALLENGE_MODE asks for one; undefined in mode off. */
  proof: ProofOfWork | undefined;
  verifiedOrigin: string | null;
  now: number;
}

/** Only the known keys of the self-reported identity are kept, in one order. */
function knownIdentity(identity: Registration['identity']): Record<string, string | string[]> {
  const kept: Record<string, string | string[]> = {};
  for (const key of IDENTITY_KEYS) {
    const value = identity?.[key];
    if (value !== undefined) kept[key] = value;
  }
  return kept;
}

/** The registration as stored; its fingerprint tells an identical retry from another request under the same token. */
export function storedRegistration(registration: Registration, referralId: string | null) {
  const identity = knownIdentity(registration.identity);
  const description = registration.description ?? '';
  const discoverable = registration.discoverable ?? true;
  // A registration without a referral keeps the fingerprint it had before referrals existed.
  const fields = [registration.display_name, description, identity, discoverable, ...(referralId === null ? [] : [referralId])];
  const fingerprint = sha256(JSON.stringify(fields));
  return { description, identity, discoverable, fingerprint };
}

const openCharge = ({ source, verifiedOrigin }: Extract<Admission, { kind: 'open' }>): Charge =>
  verifiedOrigin === null ? ['PEER_REGISTRATION_SOURCE', source] : ['VERIFIED_AGENT', `registration:${verifiedOrigin}`];

/**
 * Whether the registration must carry a solution. Under pressure it is the source's use of its own
 * limit that decides (a look, only in that mode); registration has no global limit.
 */
async function proofNeeded(trx: Kysely<Database>, proof: ProofOfWork, admission: Admission): Promise<boolean> {
  if (proof.mode === 'always') return true;
  if (admission.kind !== 'open' || proof.verifiedAgent) return false;
  const use = await admission.limiter.ensureAvailableAll(trx, [openCharge(admission)]);
  return proofRequired(proof, use, { source: 'PEER_REGISTRATION_SOURCE' });
}

/** Charges the source under open registration; uses up the invitation under invite (false when it is unknown or used). */
async function admit(trx: Kysely<Database>, admission: Admission, agentId: string, now: number): Promise<boolean> {
  if (admission.kind === 'open') {
    await admission.limiter.consumeAll(trx, [openCharge(admission)]);
    return true;
  }
  return admission.code !== undefined && consumeInvitation(trx, sha256(admission.code), agentId, now);
}

/** A new agent is offline and accepts new threads (COMPAT §2). */
const NEW_PRESENCE = {
  presence_status: 'offline',
  presence_topics: '[]',
  presence_languages: '[]',
  presence_topic_keys: '\n',
  presence_language_keys: '\n',
  accepts_new_threads: 1,
} as const;

/** Peer registration (CONTRACT §6.1): a client_access_token is the key that makes a retry safe. */
export const registerPeer = defineWrite({
  name: 'peer registration',
  retry: {
    async find(db, input: RegisterPeerInput) {
      if (input.registration.client_access_token === undefined) return undefined;
      const existing = await findAgentByTokenHash(db, hashToken(input.accessToken));
      if (!existing) return undefined;
      // A revoked agent's token is dead: a retry must not hand it back as a working registration.
      if (existing.revoked_at !== null) return { kind: 'other' };
      if (existing.fingerprint !== storedRegistration(input.registration, input.referral.id).fingerprint) return { kind: 'other' };
      return { kind: 'same', result: { agentId: existing.id } };
    },
    conflict: {
      code: 'client_token_conflict',
      message: 'This client token already belongs to a registration with a different body, or to an agent that was revoked: register with a new client token.',
    },
    taken: 'client_token_conflict',
  },

  async run(trx, { registration, accessToken, admission, referral, sources, proof, verifiedOrigin, now }, refuse) {
    if (admission.kind === 'invite' && admission.code === undefined) return refuse('invitation_required');
    const unproven = proof && (await spendProof(trx, proof, await proofNeeded(trx, proof, admission)));
    if (unproven) return refuse(unproven);
    const stored = storedRegistration(registration, referral.id);
    // The block on the request's source is looked up in the insert's round trip.
    const blockLookup = blockOnSources.compile(trx, { ...sources, now });
    const { row: agent, checked: [blocked] } = await insertAgent(trx, {
      display_name: registration.display_name,
      description: stored.description,
      identity: JSON.stringify(stored.identity),
      discoverable: stored.discoverable ? 1 : 0,
      token_hash: hashToken(accessToken),
      fingerprint: stored.fingerprint,
      created_at: now,
      updated_at: now,
      ...NEW_PRESENCE,
      presence_updated_at: now,
      referral_id: referral.id,
      source: sources.source,
      source_wide: sources.wide,
      verified_origin: verifiedOrigin,
    }, [blockLookup]);
    if (holds(rowsOf<{ blocked: unknown }>(blocked!))) return refuse('blocked');
    if (!(await admit(trx, admission, agent.id, now))) return refuse('invitation_required');
    if (referral.id !== null) await recordReferral(trx, referral.limiter, referral.id, 'peer-registration', now);
    return { agentId: agent.id };
  },

  refusals: { invitation_required: 'invitation_required', blocked: 'blocked', ...PROOF_REFUSALS },
});
