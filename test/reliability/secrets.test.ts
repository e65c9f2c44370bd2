import { createHash } from 'node:crypto';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeTelegram } from '../alerts/fake-telegram.ts';
import { BOT_TOKEN, CapturingLogger, telegramEnv, telegramFactory } from '../alerts/support.ts';
import { ADMIN_TOKEN, bearer, startApp, TEST_STORE, type TestApp } from '../helpers.ts';
import { RAISED_LIMITS } from './support.ts';

/**
 * Secret hygiene (CONTRACT §2, DEVELOPERS.md "no credential in any log, URL, alert or error"): a
 * scripted session through every route family, from documentation addresses, then every log line,
 * alert text and response is scanned. A token may appear only in the response that issued it (and
 * its idempotent retry); the administrator token, the bot token, token hashes and the client
 * addresses appear nowhere.
 */
const ADDRESSES = ['203.0.113.7', '2001:db8::1'];

interface Exchange {
  label: string;
  text: string;
  /** Tokens this response issued (or re-issued, as an idempotent retry). */
  issued: string[];
}

describe('no secret leaks into logs, alerts or other responses', () => {
  let t: TestApp;
  const telegram = new FakeTelegram();
  const alertLogger = new CapturingLogger();
  const channel = telegramFactory(alertLogger);
  const exchanges: Exchange[] = [];
  const secrets = new Set<string>();

  beforeAll(async () => {
    const apiBase = await telegram.start();
    t = await startApp({ env: { ...telegramEnv(apiBase), ...RAISED_LIMITS, LIMIT_ALERT_GLOBAL: '1000/10m' }, alerts: channel.factory });
  });
  afterAll(async () => {
    await t?.close();
    await telegram.close();
  });

  let turn = 0;
  async function call(label: string, request: InjectOptions, issues: (body: Record<string, unknown>) => unknown[] = () => []): Promise<Record<string, unknown>> {
    turn += 1;
    const response = await t.inject({ remoteAddress: ADDRESSES[turn % 2], ...request });
    // The refused test alert answers 502 by contract (§4.3); nothing else may be a 5xx.
    const ceiling = request.url === '/api/admin/notifications/test' ? 503 : 500;
    expect(response.statusCode, `${label}: ${response.body}`).toBeLessThan(ceiling);
    const body = (response.body ? response.json() : {}) as Record<string, unknown>;
    const issued = issues(body).filter((value): value is string => typeof value === 'string');
    for (const token of issued) secrets.add(token);
    exchanges.push({ label, text: `${JSON.stringify(response.headers)}\n${response.body}`, issued });
    return body;
  }

  it('keeps every credential and client address out of everything but the issuing response', async () => {
    const admin = bearer(ADMIN_TOKEN);
    const accessToken = (body: Record<string, unknown>) => [body.access_token];
    const threadToken = (body: Record<string, unknown>) => [body.thread_access_token];

    // Inbox, with a client token (retried: the retry may repeat it) and a server-made one.
    const clientToken = 'AB'.repeat(32);
    const created = await call('create with client token', { method: 'POST', url: '/api/conversations', payload: { message: 'Hello', name: 'Ann', client_access_token: clientToken } }, accessToken);
    await call('retry of that creation', { method: 'POST', url: '/api/conversations', payload: { message: 'Hello', name: 'Ann', client_access_token: clientToken } }, accessToken);
    secrets.add(clientToken);
    const other = await call('create', { method: 'POST', url: '/api/conversations', payload: { message: 'Second' } }, accessToken);
    const id = created.conversation_id as string;
    const token = created.access_token as string;
    await call('follow-up', { method: 'POST', url: `/api/conversations/${id}/messages`, headers: bearer(token), payload: { message: 'More', client_message_id: 'secret-test-1' } });
    const read = await t.inject({ method: 'GET', url: `/api/conversations/${id}`, headers: bearer(token), remoteAddress: ADDRESSES[0] });
    exchanges.push({ label: 'read', text: `${JSON.stringify(read.headers)}\n${read.body}`, issued: [] });
    await call('read with ETag', { method: 'GET', url: `/api/conversations/${id}`, headers: { ...bearer(token), 'if-none-match': String(read.headers.etag) } });
    await call('read with another conversation token', { method: 'GET', url: `/api/conversations/${id}`, headers: bearer(other.access_token as string) });
    await call('follow-up with a token in the text', { method: 'POST', url: `/api/conversations/${id}/messages`, headers: bearer(token), payload: { message: 'x'.repeat(4001) } });

    // Operator.
    await call('wrong admin token', { method: 'GET', url: '/api/admin/conversations', headers: bearer(`${ADMIN_TOKEN}x`) });
    await call('list', { method: 'GET', url: '/api/admin/conversations', headers: admin });
    await call('admin read', { method: 'GET', url: `/api/admin/conversations/${id}`, headers: admin });
    await call('admin reply', { method: 'POST', url: `/api/admin/conversations/${id}/messages`, headers: admin, payload: { message: 'Hi' } });
    await call('review', { method: 'POST', url: `/api/admin/conversations/${id}/review`, headers: admin, payload: { label: 'other', note: 'checked' } });
    await call('review with a token', { method: 'POST', url: `/api/admin/conversations/${id}/review`, headers: admin, payload: { label: 'other', note: `Bearer ${token}` } });
    await call('status', { method: 'POST', url: `/api/admin/conversations/${id}/status`, headers: admin, payload: { status: 'closed' } });
    await call('overview', { method: 'GET', url: '/api/admin/overview', headers: admin });
    await call('labels', { method: 'GET', url: '/api/admin/review-labels', headers: admin });
    await call('notifications', { method: 'GET', url: '/api/admin/notifications', headers: admin });
    await call('test alert', { method: 'POST', url: '/api/admin/notifications/test', headers: admin });
    telegram.mode = 'refuse';
    await call('refused test alert', { method: 'POST', url: '/api/admin/notifications/test', headers: admin });
    telegram.mode = 'ok';
    await call('discovery', { method: 'GET', url: '/api/agent-guide' });
    await call('health', { method: 'GET', url: '/api/health' });

    // Forum, when its routes are there.
    const peer = await call('register', { method: 'POST', url: '/api/peers', payload: { display_name: 'Secret tester' } }, accessToken);
    if (peer.access_token) {
      const agent = bearer(peer.access_token as string);
      const second = await call('register another', { method: 'POST', url: '/api/peers', payload: { display_name: 'Second tester' } }, accessToken);
      const topic = await call('create topic', { method: 'POST', url: '/api/forum/topics', headers: agent, payload: { title: 'Secrets', message: 'first' } }, threadToken);
      const topicId = topic.topic_id as string;
      const thread = bearer(topic.thread_access_token as string);
      const joined = await call('join', { method: 'POST', url: `/api/forum/topics/${topicId}/join`, headers: bearer(second.access_token as string) }, threadToken);
      await call('reply', { method: 'POST', url: `/api/forum/topics/${topicId}/replies`, headers: thread, payload: { message: 'reply', client_message_id: 'secret-forum-1' } });
      await call('owner bridge post', { method: 'POST', url: `/api/forum/topics/${topicId}/owner`, headers: thread, payload: { message: 'to the operator' } });
      await call('owner bridge read', { method: 'GET', url: `/api/forum/topics/${topicId}/owner`, headers: thread });
      await call('topic read', { method: 'GET', url: `/api/forum/topics/${topicId}` });
      await call('forum', { method: 'GET', url: '/api/forum' });
      await call('topics', { method: 'GET', url: '/api/forum/topics' });
      await call('admin topics', { method: 'GET', url: '/api/admin/forum/topics', headers: admin });
      await call('admin topic', { method: 'GET', url: `/api/admin/forum/topics/${topicId}`, headers: admin });
      await call('bridges', { method: 'GET', url: '/api/admin/forum/bridges', headers: admin });
      await call('bridge', { method: 'GET', url: `/api/admin/forum/bridges/${topicId}/${peer.agent_id as string}`, headers: admin });
      await call('bridge reply', { method: 'POST', url: `/api/admin/forum/bridges/${topicId}/${peer.agent_id as string}/messages`, headers: admin, payload: { message: 'answer' } });
      await call('announcement', { method: 'POST', url: '/api/admin/forum/announcements', headers: admin, payload: { title: 'News', summary: 'news', message: 'news' } });
      await call('invitation', { method: 'POST', url: '/api/admin/peers/invitations', headers: admin }, (body) => [body.invitation_code]);
      await call('leave', { method: 'POST', url: `/api/forum/topics/${topicId}/leave`, headers: bearer(joined.thread_access_token as string) });
      await call('close', { method: 'POST', url: `/api/forum/topics/${topicId}/close`, headers: agent });
      await call('revoke', { method: 'POST', url: '/api/peers/revoke', headers: agent });
      await call('admin revoke', { method: 'POST', url: `/api/admin/peers/${second.agent_id as string}/revoke`, headers: admin });
      await call('revoked agent', { method: 'POST', url: '/api/forum/topics', headers: agent, payload: { title: 'x', message: 'x' } });
    }

    // Alerts go out without delaying the response: wait for the ones this session caused.
    await channel.made.alerts?.idle();
    const alertTexts = telegram.received.map((request) => `${request.url}\n${request.body}`);
    expect(alertTexts.length).toBeGreaterThanOrEqual(4);

    // The scan can see a token: the response that issued one holds it.
    expect(exchanges.find((exchange) => exchange.label === 'create')?.text).toContain(other.access_token as string);
    const hashes = [...secrets].map((secret) => createHash('sha256').update(secret.toLowerCase()).digest('hex'));
    const forbiddenEverywhere = [ADMIN_TOKEN, BOT_TOKEN, ...ADDRESSES, '2001:db8:0:0', ...hashes];
    const logText = t.logs.join('\n') + alertLogger.lines.join('\n');
    const leaks: string[] = [];
    for (const needle of [...forbiddenEverywhere, ...secrets]) {
      const variants = [needle, needle.toLowerCase(), needle.toUpperCase()];
      if (variants.some((variant) => logText.includes(variant))) leaks.push(`log holds ${needle.slice(0, 12)}…`);
      // Alerts go to the bot API, whose URL holds the bot token by design: scan only what is sent.
      const sent = telegram.received.map((request) => request.body).join('\n');
      if (variants.some((variant) => sent.includes(variant))) leaks.push(`alert holds ${needle.slice(0, 12)}…`);
    }
    for (const exchange of exchanges) {
      for (const needle of forbiddenEverywhere) if (exchange.text.includes(needle)) leaks.push(`${exchange.label} holds ${needle.slice(0, 12)}…`);
      for (const secret of secrets) {
        if (exchange.issued.some((issued) => issued.toLowerCase() === secret.toLowerCase())) continue;
        if (exchange.text.toLowerCase().includes(secret.toLowerCase())) leaks.push(`${exchange.label} holds a token issued elsewhere (${secret.slice(0, 8)}…)`);
      }
    }
    console.warn(`secrets (${TEST_STORE}): ${exchanges.length} responses, ${t.logs.length} log lines, ${alertTexts.length} alerts, ${secrets.size} tokens scanned`);
    expect(leaks).toEqual([]);
    expect(t.logs.length).toBeGreaterThan(exchanges.length);
  });
});
