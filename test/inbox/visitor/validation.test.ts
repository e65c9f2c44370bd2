import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countRows, createConversation, expectError, json, startApp, type Created, type TestApp } from '../../helpers.ts';
import { create, readConversation, reply } from '../support.ts';

interface Read {
  name: string;
  invitation_id: string | null;
  messages: Array<{ body: string }>;
}

// CONTRACT §1 (trimming, code points, control characters) and the field limits of §3.1 and §3.3.
describe('visitor input validation', () => {
  let t: TestApp;
  let conversation: Created;

  const readBack = async (receipt: Created) => json<Read>(await readConversation(t, receipt.conversation_id, receipt.access_token));
  const created = async (payload: Record<string, unknown>) => {
    const response = await create(t, payload);
    expect(response.statusCode, response.body).toBe(201);
    return readBack(json<Created>(response));
  };

  beforeAll(async () => {
    t = await startApp({
      env: { LIMIT_CONVERSATION_SOURCE: '1000/1h', LIMIT_CONVERSATION_GLOBAL: '1000/1h', LIMIT_FOLLOWUP_SOURCE: '1000/1h' },
    });
    conversation = await createConversation(t);
  });
  afterAll(() => t.close());

  describe('trimming before validation and storage', () => {
    it('stores "  hi  " as "hi", and trims name and invitation id too', async () => {
      const read = await created({ message: '  hi  ', name: '\t Ada \n', invitation_id: '  inv-1  ' });
      expect(read.messages[0]!.body).toBe('hi');
      expect(read.name).toBe('Ada');
      expect(read.invitation_id).toBe('inv-1');
    });

    it('keeps inner line breaks and tabs of a message', async () => {
      const read = await created({ message: '\n first line\n\tsecond line \n' });
      expect(read.messages[0]!.body).toBe('first line\n\tsecond line');
    });

    it.each([' ', '     ', '\n\t \r\n', '\u00a0\u2003\u3000'])('refuses a message of only white space (%j) with field "message"', async (message) => {
      const before = await countRows(t, 'conversations');
      expectError(await create(t, { message }), 400, 'invalid_request', 'message');
      expect(await countRows(t, 'conversations')).toBe(before);
    });

    it('refuses a follow-up of only white space', async () => {
      expectError(await reply(t, conversation.conversation_id, conversation.access_token, { message: '   ' }), 400, 'invalid_request', 'message');
    });

    it('stores a trimmed follow-up', async () => {
      const response = await reply(t, conversation.conversation_id, conversation.access_token, { message: '  padded reply  ' });
      expect(response.statusCode).toBe(201);
      const read = await readBack(conversation);
      expect(read.messages.at(-1)!.body).toBe('padded reply');
    });

    it('counts limits after trimming: 4000 characters with padding are accepted', async () => {
      const read = await created({ message: `   ${'a'.repeat(4000)}   `, name: `  ${'n'.repeat(60)}  ` });
      expect(read.messages[0]!.body).toHaveLength(4000);
      expect(read.name).toHaveLength(60);
    });
  });

  describe('lengths in code points', () => {
    const emoji = '😀';
    const cjk = '语';

    it.each([
      ['emoji', emoji],
      ['CJK', cjk],
      ['ASCII', 'a'],
      ['accented Latin', '\u00e9'],
    ])('accepts a 4000-character message of %s and stores it unchanged', async (_label, character) => {
      const message = character.repeat(4000);
      const read = await created({ message });
      expect(read.messages[0]!.body).toBe(message);
      expect([...read.messages[0]!.body]).toHaveLength(4000);
    });

    it.each([
      ['emoji', emoji],
      ['CJK', cjk],
      ['ASCII', 'a'],
    ])('refuses a 4001-character message of %s with field "message"', async (_label, character) => {
      const before = await countRows(t, 'conversations');
      expectError(await create(t, { message: character.repeat(4001) }), 400, 'invalid_request', 'message');
      expect(await countRows(t, 'conversations')).toBe(before);
    });

    it('applies the same 4000 code points to follow-ups', async () => {
      const accepted = await reply(t, conversation.conversation_id, conversation.access_token, { message: emoji.repeat(4000) });
      expect(accepted.statusCode, accepted.body).toBe(201);
      expectError(
        await reply(t, conversation.conversation_id, conversation.access_token, { message: emoji.repeat(4001) }),
        400,
        'invalid_request',
        'message',
      );
    });

    it('accepts a name of 60 characters (emoji too) and refuses 61', async () => {
      expect((await created({ message: 'x', name: 'n'.repeat(60) })).name).toHaveLength(60);
      expect([...(await created({ message: 'x', name: emoji.repeat(60) })).name]).toHaveLength(60);
      expectError(await create(t, { message: 'x', name: 'n'.repeat(61) }), 400, 'invalid_request', 'name');
      expectError(await create(t, { message: 'x', name: emoji.repeat(61) }), 400, 'invalid_request', 'name');
    });

    it('accepts an invitation id of 80 characters of any printable text and refuses 81', async () => {
      const printable = 'Invitation: ünïcödé & spaces / 語 😀'.padEnd(80, '.');
      expect((await created({ message: 'x', invitation_id: printable })).invitation_id).toBe(printable);
      expectError(await create(t, { message: 'x', invitation_id: 'i'.repeat(81) }), 400, 'invalid_request', 'invitation_id');
    });
  });

  describe('control characters', () => {
    it.each(['a\u0000b', 'a\u0007b', 'a\nb', 'a\tb', 'a\rb', 'a\u001bb', 'a\u007fb', 'a\u0085b', 'a\u009fb'])(
      'refuses %j in name and in invitation_id',
      async (value) => {
        expectError(await create(t, { message: 'x', name: value }), 400, 'invalid_request', 'name');
        expectError(await create(t, { message: 'x', invitation_id: value }), 400, 'invalid_request', 'invitation_id');
      },
    );

    it('explains a refused character in words, not as a regular expression', async () => {
      const response = await create(t, { message: 'x', name: 'a\u0007b' });
      expect(response.json().error).toBe('The field "name" must be one line: no control characters, line or paragraph separators, bidirectional controls or non-characters.');
    });

    it('refuses NUL in a message (PostgreSQL text cannot hold it; never a 500)', async () => {
      expectError(await create(t, { message: 'before\u0000after' }), 400, 'invalid_request', 'message');
      expectError(await reply(t, conversation.conversation_id, conversation.access_token, { message: 'a\u0000' }), 400, 'invalid_request', 'message');
    });
  });

  describe('field types and formats', () => {
    it.each([
      [{}, 'message'],
      [{ name: 'only a name' }, 'message'],
      [{ message: 42 }, 'message'],
      [{ message: null }, 'message'],
      [{ message: ['hi'] }, 'message'],
      [{ message: 'x', name: 7 }, 'name'],
      [{ message: 'x', invitation_id: false }, 'invitation_id'],
      [{ message: 'x', client_access_token: 'ab'.repeat(31) + 'a' }, 'client_access_token'],
      [{ message: 'x', client_access_token: 'g'.repeat(64) }, 'client_access_token'],
      [{ message: 'x', client_access_token: 'a'.repeat(65) }, 'client_access_token'],
    ])('refuses creation body %j with field "%s"', async (payload, field) => {
      expectError(await create(t, payload), 400, 'invalid_request', field);
    });

    it.each([
      [{ message: 'x', client_message_id: 'short' }, 'client_message_id'],
      [{ message: 'x', client_message_id: 'a'.repeat(81) }, 'client_message_id'],
      [{ message: 'x', client_message_id: 'has space!' }, 'client_message_id'],
      [{ message: 'x', client_message_id: 12345678 }, 'client_message_id'],
      [{ client_message_id: 'abcdefgh' }, 'message'],
    ])('refuses follow-up body %j with field "%s"', async (payload, field) => {
      expectError(await reply(t, conversation.conversation_id, conversation.access_token, payload), 400, 'invalid_request', field);
    });

    it('accepts client_message_id of 8 and of 80 characters from the allowed alphabet', async () => {
      for (const id of ['abc-_XY9', 'A'.repeat(80)]) {
        const response = await reply(t, conversation.conversation_id, conversation.access_token, { message: `id ${id.length}`, client_message_id: id });
        expect(response.statusCode, response.body).toBe(201);
      }
    });
  });
});
