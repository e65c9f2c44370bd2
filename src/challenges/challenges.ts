import { createHmac } from 'node:crypto';
import { createChallenge, extractParams } from 'altcha-lib';
import type { Clock } from '../clock.ts';
import type { ChallengeConfig, ChallengeMode } from '../trust-config.ts';
import { ApiError } from '../http/errors.ts';
import { safeEqual } from '../tokens.ts';

/** The ALTCHA challenge object a client solves: find `number` with SHA-256(salt + number) = challenge, 0 <= number <= maxnumber. */
export interface ChallengeObject {
  algorithm: 'SHA-256';
  challenge: string;
  salt: string;
  signature: string;
  maxnumber: number;
}

/** A solution that checked out: its challenge (the key that makes it single-use) and when the challenge expires. */
export interface CheckedSolution {
  challenge: string;
  expiresAt: number;
}

/** The header that carries the solution: the base64 of the ALTCHA payload JSON. */
export const SOLUTION_HEADER = 'x-challenge-solution';

/** A payload's base64 can be no longer than this: the fields of one solution, with room to spare. */
const MAX_SOLUTION_LENGTH = 2048;

/**
 * The proof of work (ALTCHA, HMAC-signed and stateless): challenges handed out and solutions checked
 * without the store. That each solution is used once is the store's part, in the write that uses it
 * (./proof.ts). Times come from the service's clock, so the library's own expiry check (the
 * system time) is left out.
 */
export class Challenges {
  readonly #hmacKey: string;

  constructor(
    private readonly config: ChallengeConfig,
    rateSalt: string | undefined,
    private readonly clock: Clock,
  ) {
    // Every instance that shares the store derives the same key from the shared salt; a label keeps it apart from the salt's own use.
    this.#hmacKey = config.hmacKey ?? createHmac('sha256', rateSalt ?? '').update('parley challenge key').digest('hex');
  }

  get mode(): ChallengeMode {
    return this.config.mode;
  }

  /** In pressure mode: the share of a global limit, and of a source's own limit, past which the proof is asked. */
  get pressure(): { global: number; source: number } {
    return { global: this.config.pressurePercent / 100, source: this.config.sourcePercent / 100 };
  }

  async issue(): Promise<ChallengeObject> {
    const expires = new Date(this.clock.now() + this.config.expiresSeconds * 1000);
    const issued = await createChallenge({ hmacKey: this.#hmacKey, maxnumber: this.config.maxNumber, expires, algorithm: 'SHA-256' });
    return { algorithm: 'SHA-256', challenge: issued.challenge, salt: issued.salt, signature: issued.signature, maxnumber: this.config.maxNumber };
  }

  /** The solution in the header when it is well formed, signed by us, solved and not expired; otherwise undefined (as if none were sent). */
  async check(header: string | string[] | undefined): Promise<CheckedSolution | undefined> {
    if (typeof header !== 'string' || header.length === 0 || header.length > MAX_SOLUTION_LENGTH) return undefined;
    let payload: unknown;
    try {
      payload = JSON.parse(Buffer.from(header, 'base64').toString('utf8'));
    } catch {
      return undefined;
    }
    if (!isPayload(payload) || !payload.salt.endsWith('&')) return undefined;
    const expiresAt = Number(extractParams(payload).expires) * 1000;
    if (!Number.isSafeInteger(expiresAt) || expiresAt <= this.clock.now()) return undefined;
    // The challenge made again from the salt and number (as altcha-lib's verifySolution does), its signature compared in constant time.
    const remade = await createChallenge({ algorithm: 'SHA-256', hmacKey: this.#hmacKey, number: payload.number, salt: payload.salt });
    const solved = remade.challenge === payload.challenge && safeEqual(remade.signature, payload.signature);
    return solved ? { challenge: payload.challenge, expiresAt } : undefined;
  }

  /** Runs a write that may be refused for want of a solution; that refusal gets a fresh challenge in its body, to solve and retry in one step. */
  async withFreshChallenge<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (!(error instanceof ApiError) || error.code !== 'challenge_required' || error.options.extra?.challenge) throw error;
      throw new ApiError('challenge_required', { ...error.options, extra: { ...error.options.extra, challenge: await this.issue() } });
    }
  }
}

interface Payload {
  algorithm: 'SHA-256';
  challenge: string;
  number: number;
  salt: string;
  signature: string;
}

function isPayload(value: unknown): value is Payload {
  if (typeof value !== 'object' || value === null) return false;
  const { algorithm, challenge, number, salt, signature } = value as Record<string, unknown>;
  return (
    algorithm === 'SHA-256' &&
    typeof challenge === 'string' &&
    /^[0-9a-f]{64}$/.test(challenge) &&
    Number.isSafeInteger(number) &&
    (number as number) >= 0 &&
    typeof salt === 'string' &&
    salt.length <= 200 &&
    typeof signature === 'string' &&
    /^[0-9a-f]{64}$/.test(signature)
  );
}
