import type { FastifyRequest } from 'fastify';
import type { Services } from '../services.ts';
import { proofOfWork, type ProofOfWork } from './proof.ts';

/** What a first contact or a registration knows of who sends it, beyond its source: a verified origin, and its proof of work. */
export interface RequestTrust {
  verifiedOrigin: string | null;
  proof: ProofOfWork | undefined;
}

export async function requestTrust(request: FastifyRequest, services: Pick<Services, 'challenges' | 'signatureAgents'>): Promise<RequestTrust> {
  const verifiedOrigin = await services.signatureAgents.originOf(request);
  return { verifiedOrigin, proof: await proofOfWork(request, services.challenges, verifiedOrigin) };
}
