import type { Kysely } from 'kysely';
import type { FastifyRequest } from 'fastify';
import type { ChallengeMode } from '../trust-config.ts';
import type { LimitUse } from '../limits/limiter.ts';
import type { LimitName } from '../limits/names.ts';
import type { Database } from '../store/schema.ts';
import type { WriteError } from '../writes/write.ts';
import { SOLUTION_HEADER, type Challenges, type CheckedSolution } from './challenges.ts';
import './tables.ts';

/** What a write that may ask for proof of work knows of its request: the mode, the solution sent (checked), and whether a verified agent sent it. */
export interface ProofOfWork {
  mode: ChallengeMode;
  solution: CheckedSolution | undefined;
  /** A verified agent (Web Bot Auth) skips the proof under pressure, never when it is always asked. */
  verifiedAgent: boolean;
  /** Pressure: the share of a global limit, and of a source's own limit, past which the proof is asked. */
  globalShare: number;
  sourceShare: number;
}

/** The limits whose use decides pressure for one write: the global one (if it has one) and the per-source one. */
export interface PressureLimits {
  global?: LimitName;
  source: LimitName;
}

export type ProofRefusal = 'challenge_missing' | 'challenge_spent';

/** The refusals of a write that asks for proof, for its `refusals` table: both 428 challenge_required. */
export const PROOF_REFUSALS: Record<ProofRefusal, WriteError> = {
  challenge_missing: 'challenge_required',
  challenge_spent: { code: 'challenge_required', message: 'That solution was already used: solve the fresh challenge in this answer and send the request again with its solution.' },
};

/**
 * The request's proof of work, its solution checked off the store (the hashing); undefined in mode
 * off, where nothing is asked and nothing is checked.
 */
export async function proofOfWork(request: FastifyRequest, challenges: Challenges, verifiedOrigin: string | null): Promise<ProofOfWork | undefined> {
  if (challenges.mode === 'off') return undefined;
  return {
    mode: challenges.mode,
    solution: await challenges.check(request.headers[SOLUTION_HEADER]),
    verifiedAgent: verifiedOrigin !== null,
    globalShare: challenges.pressure.global,
    sourceShare: challenges.pressure.source,
  };
}

/** Whether this write must carry a solution: always, or under pressure (what the limits' look saw) unless a verified agent sends it. */
export function proofRequired(proof: ProofOfWork, use: LimitUse, limits: PressureLimits): boolean {
  if (proof.mode === 'always') return true;
  if (proof.verifiedAgent) return false;
  const globalUse = limits.global === undefined ? 0 : (use.get(limits.global) ?? 0);
  return globalUse >= proof.globalShare || (use.get(limits.source) ?? 0) >= proof.sourceShare;
}

/**
 * Spends the solution in the write's own transaction, when one is needed: one insert under the
 * challenge's primary key, so a solution is accepted once on every instance that shares the store
 * (a second use, even racing the first, inserts nothing). The refusal when the proof is missing or
 * spent; undefined when the write may go on.
 */
export async function spendProof(trx: Kysely<Database>, proof: ProofOfWork | undefined, required: boolean): Promise<ProofRefusal | undefined> {
  if (proof === undefined || !required) return undefined;
  if (proof.solution === undefined) return 'challenge_missing';
  const spent = await trx
    .insertInto('spent_challenges')
    .values({ challenge: proof.solution.challenge, expires_at: proof.solution.expiresAt })
    .onConflict((conflict) => conflict.column('challenge').doNothing())
    .returning('challenge')
    .executeTakeFirst();
  return spent === undefined ? 'challenge_spent' : undefined;
}
