import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config.ts';
import { createAlerts, FanOutAlerts } from '../../src/alerts/fan-out.ts';
import { ALERT_TEXTS } from '../../src/alerts/texts.ts';
import type { ManualClock } from '../../src/clock.ts';
import { Limiter } from '../../src/limits/limiter.ts';
import { ActionLinks } from '../../src/links/action-links.ts';
import type { Store } from '../../src/store/store.ts';
import { adminHeaders, bearer, createConversation, json, startApp } from '../helpers.ts';
import { LINK_ENV, PUBLIC_URL } from '../links/support.ts';
import { FakeTelegram } from './fake-telegram.ts';
import { CapturingLogger } from './support.ts';

const NTFY_TOKEN = 'tk_ntfytokenforparleytests0123456789';
const SLACK_PATH = '/services/T0001/B0001/slackSecretPart123';
const DISCORD_PATH = '/api/webhooks/123456/discordSecretPart456';
const LINK = 'https://inbox.example/act/signed-capability-789';

/** One local receiver per service: ntfy, Slack and Discord bodies as they arrive. */
describe('ntfy, Slack and Discord alerts', () => {
  const ntfy = new FakeTelegram();
  const slack = new FakeTelegram();
  const discord = new FakeTelegram();
  let env: Record<string, string>;

  beforeAll(async () => {
    env = {
      NTFY_URL: `${await ntfy.start()}/base/parley-alerts`,
      NTFY_TOKEN,
      SLACK_WEBHOOK_URL: `${await slack.start()}${SLACK_PATH}`,
      DISCORD_WEBHOOK_URL: `${await discord.start()}${DISCORD_PATH}`,
      LIMIT_CONVERSATION_SOURCE: '1000/1h',
      LIMIT_FOLLOWUP_SOURCE: '1000/1h',
    };
  });
  afterAll(async () => {
    await Promise.all([ntfy.close(), slack.close(), discord.close()]);
  });
  beforeEach(() => {
    for (const receiver of [ntfy, slack, discord]) {
      receiver.received.length = 0;
      receiver.mode = 'ok';
    }
  });

  /** `linkFor` gives every alert that link; 'signed' makes the app's own signed links, with ntfy's Close form. */
  async function start(extraEnv: Record<string, string> = {}, linkFor?: ((thread: string) => string | undefined) | 'signed') {
    const logger = new CapturingLogger();
    const made: { alerts?: FanOutAlerts } = {};
    const factory = (deps: { config: Config; store: Store; clock: ManualClock }) => {
      const links = new ActionLinks(deps.config, deps.clock);
      const linking =
        linkFor === 'signed' ? { linkFor: (thread: string) => links.urlFor(thread), closeFormFor: (link: string) => links.closeFormFor(link) } : linkFor && { linkFor };
      const alerts = createAlerts({ ...deps, limiter: new Limiter(deps.config.limits, deps.clock), logger, ...linking });
      if (!(alerts instanceof FanOutAlerts)) throw new Error('no channel configured');
      return (made.alerts = alerts);
    };
    const t = await startApp({ env: { ...env, ...extraEnv }, alerts: factory });
    const alerts = made.alerts!;
    return {
      t,
      alerts,
      async close() {
        await alerts.close();
        const everything = [...t.logs, ...logger.lines].join('\n');
        for (const secret of [NTFY_TOKEN, 'slackSecretPart123', 'discordSecretPart456', 'signed-capability-789']) expect(everything).not.toContain(secret);
        await t.close();
      },
    };
  }

  const body = (receiver: FakeTelegram, index = 0) => JSON.parse(receiver.received[index]!.body) as Record<string, unknown>;

  it('sends the fixed sentence to each, content-free by default, in each service\'s format', async () => {
    const { t, alerts, close } = await start();
    await createConversation(t, { message: 'A private question', name: 'Agent Smith' });
    await alerts.idle();

    expect(ntfy.received).toHaveLength(1);
    expect(ntfy.received[0]!.url).toBe('/base/');
    expect(ntfy.received[0]!.headers.authorization).toBe(`Bearer ${NTFY_TOKEN}`);
    expect(body(ntfy)).toEqual({ topic: 'parley-alerts', title: 'Parley', message: ALERT_TEXTS.new, priority: 4, tags: ['speech_balloon'] });
    expect(slack.received[0]!.url).toBe(SLACK_PATH);
    expect(body(slack)).toEqual({ text: ALERT_TEXTS.new, unfurl_links: false });
    expect(discord.received[0]!.url).toBe(DISCORD_PATH);
    expect(body(discord)).toEqual({ content: ALERT_TEXTS.new, allowed_mentions: { parse: [] } });
    for (const receiver of [ntfy, slack, discord]) {
      expect(receiver.received[0]!.body).not.toContain('A private question');
      expect(receiver.received[0]!.body).not.toContain('Agent Smith');
    }
    await close();
  });

  it('with ALERT_INCLUDE_TEXT=true carries the name and 280 characters, escaped for each markup, and the open link', async () => {
    const { t, alerts, close } = await start({ ALERT_INCLUDE_TEXT: 'true' }, (thread) => (thread.startsWith('conversation:') ? LINK : undefined));
    const message = `<b>*bold*</b> & @everyone ${'x'.repeat(300)}`;
    const created = await createConversation(t, { message, name: 'Ann_Smith' });
    await alerts.idle();

    const shown = `Ann_Smith: <b>*bold*</b> & @everyone ${'x'.repeat(254)}…`;
    expect(body(ntfy)).toMatchObject({
      message: `${ALERT_TEXTS.new}\n\n${shown}`,
      click: LINK,
      actions: [{ action: 'view', label: 'Open', url: LINK, clear: true }],
    });
    expect(body(slack).text).toBe(
      `${ALERT_TEXTS.new}\n> Ann_Smith: &lt;b&gt;*bold*&lt;/b&gt; &amp; @everyone ${'x'.repeat(254)}…\n<${LINK}|Open in Parley>`,
    );
    expect(body(discord).content).toBe(
      `${ALERT_TEXTS.new}\nAnn\\_Smith\\: \\<b\\>\\*bold\\*\\</b\\> & \\@everyone ${'x'.repeat(254)}…\n[Open in Parley](<${LINK}>)`,
    );

    // A follow-up's alert looks the visitor's name up.
    t.clock.advance(10 * 60_000);
    const replied = await t.inject({
      method: 'POST',
      url: `/api/conversations/${created.conversation_id}/messages`,
      headers: bearer(created.access_token),
      payload: { message: 'Still there?' },
    });
    expect(replied.statusCode).toBe(201);
    await alerts.idle();
    expect(body(ntfy, 1)).toMatchObject({ message: `${ALERT_TEXTS.reply}\n\nAnn_Smith: Still there?`, priority: 3 });
    await close();
  });

  it('gives a conversation\'s ntfy alert a Close button: the app\'s request, as ntfy sends it (no Origin), closes it; a browser\'s is refused', async () => {
    const { t, alerts, close } = await start(LINK_ENV, 'signed');
    const created = await createConversation(t, { message: 'Please close me from my phone' });
    await alerts.idle();
    type Action = { action: string; label: string; url: string; method?: string; headers?: Record<string, string>; body?: string; clear: boolean };
    const { click, actions } = body(ntfy) as { click: string; actions: Action[] };
    expect(click.startsWith(`${PUBLIC_URL}/act/`)).toBe(true);
    expect(actions.map((action) => [action.action, action.label])).toEqual([
      ['view', 'Open'],
      ['http', 'Close'],
    ]);
    const closeAction = actions[1]!;
    expect(closeAction).toMatchObject({ url: click, method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, clear: true });
    expect(closeAction.body).not.toContain(created.conversation_id);
    expect(body(slack).text).not.toContain('form_token');

    const status = async () =>
      json<{ conversation: { status: string } }>(await t.inject({ method: 'GET', url: `/api/admin/conversations/${created.conversation_id}`, headers: adminHeaders() })).conversation.status;
    const performed = (headers: Record<string, string>) =>
      t.inject({ method: closeAction.method as 'POST', url: closeAction.url.slice(PUBLIC_URL.length), headers: { ...closeAction.headers, ...headers }, payload: closeAction.body });
    // ntfy's web app runs the action from a browser, which names its page: another site, refused.
    expect((await performed({ origin: 'https://ntfy.sh' })).statusCode).toBe(403);
    expect((await performed({ 'sec-fetch-site': 'cross-site' })).statusCode).toBe(403);
    expect(await status()).toBe('open');
    const closed = await performed({});
    expect(closed.statusCode).toBe(303);
    expect(await status()).toBe('closed');
    expect((await performed({})).statusCode).toBe(303);
    expect(await status()).toBe('closed');

    // A bridge's alert, or one with a link that is not signed, offers Open alone.
    const links = t.app.services.actionLinks;
    expect(links.closeFormFor(links.urlFor(`bridge:${created.conversation_id}:${created.conversation_id}`)!)).toBeUndefined();
    expect(links.closeFormFor(LINK)).toBeUndefined();
    const logs = t.logs.join('\n');
    for (const secret of [click.slice(click.lastIndexOf('.')), new URLSearchParams(closeAction.body).get('form_token')!]) expect(logs).not.toContain(secret);
    await close();
  });

  it('keeps delivering to the others when one refuses, and shows each result without its URL', async () => {
    const { t, alerts, close } = await start();
    slack.mode = 'refuse';
    await createConversation(t, { message: 'Hello' });
    await alerts.idle();
    expect([ntfy.received.length, slack.received.length, discord.received.length]).toEqual([1, 1, 1]);

    const settings = await t.inject({ method: 'GET', url: '/api/admin/notifications', headers: adminHeaders() });
    const channels = settings.json<{ channels: { name: string; configured: boolean; last_result: string | null; last_detail: string | null }[] }>().channels;
    expect(channels.filter((channel) => channel.configured).map(({ name, last_result, last_detail }) => [name, last_result, last_detail])).toEqual([
      ['ntfy', 'sent', 'Delivered.'],
      ['slack', 'failed', 'Slack refused the alert (HTTP 400).'],
      ['discord', 'sent', 'Delivered.'],
    ]);
    for (const secret of [NTFY_TOKEN, 'slackSecretPart123', 'discordSecretPart456', '127.0.0.1']) expect(settings.body).not.toContain(secret);
    await close();
  });

  it('tests one channel with ?channel=, and all by default', async () => {
    const { t, close } = await start();
    const one = await t.inject({ method: 'POST', url: '/api/admin/notifications/test?channel=discord', headers: adminHeaders() });
    expect(one.statusCode).toBe(200);
    expect(one.json()).toEqual({ sent: true, channels: [{ channel: 'discord', sent: true }] });
    expect([ntfy.received.length, slack.received.length, discord.received.length]).toEqual([0, 0, 1]);
    expect(body(discord).content).toBe(ALERT_TEXTS.test);

    slack.mode = 'redirect';
    const all = await t.inject({ method: 'POST', url: '/api/admin/notifications/test', headers: adminHeaders() });
    expect(all.statusCode).toBe(200);
    expect(all.json<{ channels: unknown[] }>().channels).toEqual([
      { channel: 'ntfy', sent: true },
      { channel: 'slack', sent: false, reason: 'delivery_failed', detail: 'Slack answered with a redirect (HTTP 302), which is not followed.' },
      { channel: 'discord', sent: true },
    ]);
    await close();
  });
});
