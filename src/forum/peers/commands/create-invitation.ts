import { newToken, sha256 } from '../../../tokens.ts';
import { defineWrite } from '../../../writes/write.ts';
import { insertInvitation } from '../queries.ts';

/** A one-time invitation code for registration by invitation; stored only as a hash, returned once. */
export const createInvitation = defineWrite({
  name: 'invitation',
  async run(trx, { now }: { now: number }) {
    const code = newToken();
    await insertInvitation(trx, sha256(code), now);
    return { code, createdAt: now };
  },
  refusals: {},
});
