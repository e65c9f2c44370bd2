import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAlerts, FanOutAlerts } from '../../src/alerts/fan-out.ts';
import { ALERT_TEXTS } from '../../src/alerts/texts.ts';
import type { ManualClock } from '../../src/clock.ts';
import type { Config } from '../../src/config.ts';
import { Limiter } from '../../src/limits/limiter.ts';
import type { Store } from '../../src/store/store.ts';
import { adminHeaders, bearer, createConversation, startApp } from '../helpers.ts';
import { CapturingLogger } from './support.ts';

const SMTP_PASSWORD = 'smtp-password-for-parley-tests-42';
const LINK = 'https://inbox.example/act/signed?c=1&sig=abc';

/** A real SMTP server on 127.0.0.1 (smtp-server) whose mail is parsed by mailparser. */
describe('e-mail alerts', () => {
  const mails: ParsedMail[] = [];
  let server: SMTPServer;
  let port: number;

  beforeAll(async () => {
    server = new SMTPServer({
      disabledCommands: ['STARTTLS'],
      allowInsecureAuth: true,
      onAuth(auth, _session, callback) {
        if (auth.username === 'alerts' && auth.password === SMTP_PASSWORD) callback(null, { user: 'alerts' });
        else callback(new Error('Invalid username or password'));
      },
      onData(stream, _session, callback) {
        simpleParser(stream).then(
          (mail) => {
            mails.push(mail);
            callback();
          },
          (error: Error) => callback(error),
        );
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    mails.length = 0;
  });

  async function start(password: string, extraEnv: Record<string, string> = {}) {
    const logger = new CapturingLogger();
    const made: { alerts?: FanOutAlerts } = {};
    const factory = (deps: { config: Config; store: Store; clock: ManualClock }) => {
      const alerts = createAlerts({ ...deps, limiter: new Limiter(deps.config.limits, deps.clock), logger, linkFor: () => LINK });
      if (!(alerts instanceof FanOutAlerts)) throw new Error('no channel configured');
      return (made.alerts = alerts);
    };
    const env = {
      SMTP_URL: `smtp://alerts:${password}@127.0.0.1:${port}`,
      ALERT_EMAIL_TO: 'operator@example.org',
      ALERT_EMAIL_FROM: 'parley@example.org',
      ...extraEnv,
    };
    const t = await startApp({ env, alerts: factory });
    return { t, alerts: made.alerts!, logger };
  }

  it('threads every alert of a conversation under the first, in text and escaped HTML, without tracking', async () => {
    const { t, alerts } = await start(SMTP_PASSWORD, { ALERT_INCLUDE_TEXT: 'true' });
    const created = await createConversation(t, { message: 'Is <script>alert(1)</script> & "this" ok?', name: 'Eve <eve@example.net>' });
    await alerts.idle();
    t.clock.advance(10 * 60_000);
    const replied = await t.inject({
      method: 'POST',
      url: `/api/conversations/${created.conversation_id}/messages`,
      headers: bearer(created.access_token),
      payload: { message: 'Second <i>note</i>' },
    });
    expect(replied.statusCode).toBe(201);
    await alerts.idle();
    const other = await createConversation(t, { message: 'Another one' }, { 'x-forwarded-for': '203.0.113.9' });
    await alerts.idle();

    expect(mails).toHaveLength(3);
    const [first, second, third] = mails as [ParsedMail, ParsedMail, ParsedMail];
    expect(first.from?.text).toBe('parley@example.org');
    expect((first.to as { text: string }).text).toBe('operator@example.org');
    expect(first.subject).toBe(second.subject);
    expect(first.messageId).toMatch(/^<[0-9a-f]{32}@example\.org>$/);
    expect(first.inReplyTo).toBeUndefined();
    expect(second.inReplyTo).toBe(first.messageId);
    expect(second.references).toBe(first.messageId);
    expect(second.messageId).not.toBe(first.messageId);
    expect(third.inReplyTo).toBeUndefined();
    expect(third.messageId).not.toBe(first.messageId);
    for (const mail of mails) {
      expect(mail.headers.get('auto-submitted')).toBe('auto-generated');
      expect(mail.messageId).not.toContain(created.conversation_id);
      expect(mail.messageId).not.toContain(other.conversation_id);
    }

    expect(first.text).toBe(`${ALERT_TEXTS.new}\n\nEve <eve@example.net>: Is <script>alert(1)</script> & "this" ok?\n\nOpen: ${LINK}`);
    expect(first.html).toContain('<blockquote>Eve &lt;eve@example.net&gt;: Is &lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;this&quot; ok?</blockquote>');
    expect(first.html).toContain(`<a href="${LINK.replace(/&/g, '&amp;')}">Open in Parley</a>`);
    expect(first.html).not.toMatch(/<img|<script|src=/i);
    expect(second.text).toContain('Eve <eve@example.net>: Second <i>note</i>');
    await alerts.close();
    await t.close();
  });

  it('reports a refused login without the password, and lists the channel as failed', async () => {
    const { t, alerts, logger } = await start('wrong-password-value-0000');
    const response = await t.inject({ method: 'POST', url: '/api/admin/notifications/test?channel=email', headers: adminHeaders() });
    expect(response.statusCode).toBe(502);
    expect(response.json()).toMatchObject({ reason: 'delivery_failed', error: 'The mail server refused the SMTP_URL credentials.' });
    const settings = await t.inject({ method: 'GET', url: '/api/admin/notifications', headers: adminHeaders() });
    expect(settings.json<{ channels: { name: string; last_result: string | null }[] }>().channels.find(({ name }) => name === 'email')?.last_result).toBe('failed');
    expect(mails).toHaveLength(0);
    await alerts.close();
    const everything = [response.body, settings.body, ...t.logs, ...logger.lines].join('\n');
    expect(everything).not.toContain('wrong-password-value-0000');
    await t.close();
  });
});
