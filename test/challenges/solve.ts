import { createHash } from 'node:crypto';

export interface IssuedChallenge {
  algorithm: string;
  challenge: string;
  salt: string;
  signature: string;
  maxnumber: number;
}

/** Solves an ALTCHA challenge as an agent would (the loop of the guides' example); the X-Challenge-Solution value. */
export function solve(issued: IssuedChallenge, number?: number): string {
  let found = number;
  for (let candidate = 0; found === undefined && candidate <= issued.maxnumber; candidate += 1) {
    if (createHash('sha256').update(issued.salt + candidate).digest('hex') === issued.challenge) found = candidate;
  }
  if (found === undefined) throw new Error('no solution within maxnumber');
  const { algorithm, challenge, salt, signature } = issued;
  return Buffer.from(JSON.stringify({ algorithm, challenge, number: found, salt, signature })).toString('base64');
}
