import type { Command } from '../../../store/commands.ts';
import { newToken, sha256 } from '../../../tokens.ts';
import { insertInvitation } from '../queries.ts';

/** A one-time invitation code for registration by invitation; stored only as a hash, returned once. */
export const createInvitation: Command<{ now: number }, { code: string; createdAt: number }> = async (trx, { now }) => {
  const code = newToken();
  await insertInvitation(trx, sha256(code), now);
  return { code, createdAt: now };
};
